import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import Vault
@testable import VaultAppTestSupport

/// Operators' TOTP secrets are sealed under a KEK version: `vault keys rotate` re-seals them under
/// the new version before it drops the old one, so an operator signs in to the console of a served
/// vault with password and code after the rotation, in key-file mode (the old version moved out of
/// the key file) and in passphrase mode (the old passphrase no longer opens anything) alike.
@Suite struct OperatorKeyRotationTests {
    static let password = "blue kettle harbour"

    /// Runs `vault` with `input` on its standard input and `environment` added.
    static func run(_ vault: VaultProcess, _ arguments: [String], input: String, environment: [String: String]) async throws -> VaultProcess.Outcome {
        let file = vault.directory.file("stdin-\(UUID().uuidString)")
        try Data(input.utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("VAULT_") { env[key] = nil }
        if let postgres = vault.postgres { env["VAULT_DATABASE_URL"] = postgres.urlText }
        env.merge(environment) { _, new in new }
        let finished = try await Subprocess(
            executable: "/bin/sh",
            arguments: ["-c", #"cd "$0" && program="$1" && input="$2" && shift 2 && exec "$program" "$@" < "$input""#, vault.directory.path,
                        VaultProcess.executable.path, file] + arguments,
            environment: env
        ).finish()
        return VaultProcess.Outcome(status: finished.status, stdout: finished.standardOutput, stderr: finished.standardError)
    }

    /// Creates operator `ada` and returns its authenticator secret.
    static func createOperator(_ vault: VaultProcess, environment: [String: String]) async throws -> [UInt8] {
        let created = try await run(
            vault, ["operator", "create", "ada", "--role", "admin", "--password-stdin", "--json"], input: password + "\n", environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
        return try Encoding.fromBase32(try #require(object["totpSecret"] as? String))
    }

    /// Serves the vault and signs `ada` in to the console: the HTTP status of the sign-in (303 and
    /// a session cookie on success, 401 when refused).
    static func signIn(_ vault: VaultProcess, secret: [UInt8], environment: [String: String]) async throws -> (status: UInt, cookie: Bool) {
        let server = try vault.start(["serve"], environment: environment.merging(["VAULT_PORT": "0"]) { _, new in new })
        defer { server.terminateAndReap() }
        let port = try #require(try await ServerProcess.waitForPort(server), "\(server.standardError.text)")
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/console/sign-in")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let code = TOTP.code(secret: secret, step: TOTP.step(at: Date()))
            request.body = .bytes(ByteBuffer(string: "name=ada&password=blue+kettle+harbour&code=\(code)"))
            let response = try await client.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
            try await client.shutdown()
            return (response.status.code, response.headers.first(name: "Set-Cookie")?.hasPrefix("vault_console=") == true)
        } catch {
            try await client.shutdown()
            throw error
        }
    }

    @Test func anOperatorSignsInAfterAKeyFileRotationDropsTheOldVersion() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        let secret = try await Self.createOperator(vault, environment: [:])
        let rotated = try await vault.run(["keys", "rotate"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stdout.contains("removed retired versions"), "\(rotated.stdout)")
        let status = try await vault.run(["keys", "status"])
        #expect(status.stdout.contains("version 1: retired"), "\(status.stdout)")
        let signedIn = try await Self.signIn(vault, secret: secret, environment: [:])
        #expect(signedIn.status == 303 && signedIn.cookie, "signed in with password and code after the rotation")
    }

    @Test func anOperatorSignsInAfterThePassphraseIsChanged() async throws {
        let (old, new) = ("ocean lantern ribbon gravel orbit", "harbor violet quarry meadow signal")
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize(environment: ["VAULT_MASTER_PASSPHRASE": old]).status == 0)
        let secret = try await Self.createOperator(vault, environment: ["VAULT_MASTER_PASSPHRASE": old])
        let rotated = try await vault.run(["keys", "rotate"], environment: ["VAULT_MASTER_PASSPHRASE": old, "VAULT_NEW_MASTER_PASSPHRASE": new])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let signedIn = try await Self.signIn(vault, secret: secret, environment: ["VAULT_MASTER_PASSPHRASE": new])
        #expect(signedIn.status == 303 && signedIn.cookie, "signed in with password and code after the passphrase change")
    }
}
