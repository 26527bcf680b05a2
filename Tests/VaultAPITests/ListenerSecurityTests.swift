import AsyncHTTPClient
import Foundation
import HummingbirdTLS
import NIOCore
import NIOHTTP1
import Testing
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// TLS: HTTPS from `server.tls`, and no plain HTTP beyond loopback unless
/// `server.allowPlaintext` says so.
@Suite struct ListenerSecurityTests {
    /// A throwaway self-signed certificate for `localhost` and 127.0.0.1, made with the openssl CLI.
    static func selfSignedCertificate(in directory: TemporaryDirectory) async throws -> VaultConfiguration.Server.TLS {
        let files = VaultConfiguration.Server.TLS(certificateFile: directory.file("cert.pem"), keyFile: directory.file("key.pem"))
        let openssl = try Subprocess(
            executable: "/usr/bin/openssl",
            arguments: [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                "-keyout", files.keyFile, "-out", files.certificateFile,
            ],
            environment: ProcessInfo.processInfo.environment)
        let finished = await openssl.finish()
        #expect(finished.status == 0, "\(finished.standardError)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: files.keyFile)
        return files
    }

    @Test func theServerAnswersHTTPSWithTheConfiguredCertificate() async throws {
        let certificates = TemporaryDirectory()
        let tls = try await Self.selfSignedCertificate(in: certificates)
        let fixture = try await APIFixture { $0.server.tls = tls }
        var clientTLS = TLSConfiguration.makeClientConfiguration()
        clientTLS.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(tls.certificateFile))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: clientTLS))
        do {
            try await fixture.serving { port in
                var request = HTTPClientRequest(url: "https://localhost:\(port)/v1/secure-cards")
                request.headers.add(name: "Authorization", value: "Bearer \(fixture.adminA)")
                let response = try await client.execute(request, timeout: .seconds(10))
                #expect(response.status == .ok)
                let body = try await response.body.collect(upTo: 1 << 20)
                #expect(String(buffer: body).contains("\"data\""))
                // Plain HTTP on the TLS port is not served.
                let plain = try await RawConnection.open(port: port)
                try await plain.send("GET /healthz HTTP/1.1\r\nHost: vault\r\n\r\n")
                #expect(await plain.waitForClose(within: .seconds(10)))
                #expect(!plain.received.contains("HTTP/1.1 200"))
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test(arguments: ["0.0.0.0", "::", "10.1.2.3", "vault.example.com", "0x7f000001"])
    func plainHTTPBeyondLoopbackIsRefusedNamingTheSetting(host: String) async throws {
        var settings = VaultConfiguration.Server()
        settings.host = host
        #expect {
            try VaultHTTPServer.checkPlaintext(settings)
        } throws: { error in
            (error as? ConfigurationError)?.key == "server.allowPlaintext" && "\(error)".contains("server.tls")
        }
        settings.allowPlaintext = true
        try VaultHTTPServer.checkPlaintext(settings)
        settings.allowPlaintext = false
        settings.tls = .init(certificateFile: "cert.pem", keyFile: "key.pem")
        try VaultHTTPServer.checkPlaintext(settings)
    }

    @Test func buildingTheApplicationOnAllInterfacesWithoutTLSIsRefused() async throws {
        let fixture = try await APIFixture { $0.server.host = "0.0.0.0" }
        #expect(throws: ConfigurationError.self) { _ = try buildApplication(runtime: fixture.runtime, logger: fixture.logger) }
    }

    @Test(arguments: ["127.0.0.1", "127.9.8.7", "localhost", "LOCALHOST", "::1", "[::1]", "::ffff:127.0.0.1"])
    func loopbackAddressesMayServePlainHTTP(host: String) throws {
        var settings = VaultConfiguration.Server()
        settings.host = host
        #expect(VaultHTTPServer.isLoopback(host: host))
        try VaultHTTPServer.checkPlaintext(settings)
    }

    @Test func unusableTLSFilesAreRefusedNamingTheSetting() async throws {
        let directory = TemporaryDirectory()
        let tls = try await Self.selfSignedCertificate(in: directory)
        try "not a certificate".write(toFile: directory.file("bad.pem"), atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError(key: "server.tls.certificateFile", message: "cannot be read as a PEM certificate chain (\(directory.file("bad.pem")))")) {
            _ = try VaultHTTPServer.tlsConfiguration(.init(certificateFile: directory.file("bad.pem"), keyFile: tls.keyFile))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: tls.keyFile)
        #expect { _ = try VaultHTTPServer.tlsConfiguration(tls) } throws: { error in
            (error as? ConfigurationError)?.key == "server.tls.keyFile"
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tls.keyFile)
        _ = try VaultHTTPServer.tlsConfiguration(tls)
    }

    @Test func theListenerSettingsAreReadAndChecked() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try """
            server:
              headerReadTimeoutSeconds: 3
              bodyReadTimeoutSeconds: 4
              idleTimeoutSeconds: 5
              maxConnections: 100
              failedAuthLimit: 7
              failedAuthWindowSeconds: 30
              tls:
                certificateFile: /etc/vault/cert.pem
                keyFile: /etc/vault/key.pem
              allowPlaintext: true
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let server = try VaultConfiguration.load(path: path, environment: [:]).server
        #expect(server.headerReadTimeoutSeconds == 3 && server.bodyReadTimeoutSeconds == 4 && server.idleTimeoutSeconds == 5)
        #expect(server.maxConnections == 100 && server.failedAuthLimit == 7 && server.failedAuthWindowSeconds == 30)
        #expect(server.tls == .init(certificateFile: "/etc/vault/cert.pem", keyFile: "/etc/vault/key.pem"))
        #expect(server.allowPlaintext)
        let defaults = VaultConfiguration.Server()
        #expect(defaults.headerReadTimeoutSeconds <= 10 && defaults.bodyReadTimeoutSeconds <= 10 && defaults.idleTimeoutSeconds <= 10)
        #expect(defaults.tls == nil && !defaults.allowPlaintext)
        for (yaml, key) in [
            ("server:\n  idleTimeoutSeconds: 0\n", "server.idleTimeoutSeconds"),
            ("server:\n  maxConnections: 0\n", "server.maxConnections"),
            ("server:\n  allowPlaintext: maybe\n", "server.allowPlaintext"),
            ("server:\n  tls:\n    certificateFile: c.pem\n", "server.tls.keyFile"),
            ("server:\n  tls:\n    cert: c.pem\n", "server.tls.cert"),
        ] {
            try yaml.write(toFile: path, atomically: true, encoding: .utf8)
            #expect {
                _ = try VaultConfiguration.load(path: path, environment: [:])
            } throws: { error in
                (error as? ConfigurationError)?.key == key
            }
        }
    }

    @Test func vaultServeOnAllInterfacesWithoutTLSExitsNamingTheSetting() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.run(["keys", "init"])
        let refused = try await vault.run(["serve"], environment: ["VAULT_HOST": "0.0.0.0", "VAULT_PORT": "0"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("server.allowPlaintext"))
        #expect(!FileManager.default.fileExists(atPath: vault.directory.file("data/vault.sqlite")))
    }
}
