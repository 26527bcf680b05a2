import ArgumentParser
import Foundation
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultPostgres
@testable import VaultAppTestSupport

/// Secrets need not be written on the command line or in a URL: gateway credentials come from a
/// file (`KEY=@PATH`) or standard input (`KEY=-`), the PostgreSQL password from
/// `database.passwordFile`; errors name the key and the file, never the secret.
@Suite struct SecretArgumentTests {
    static func file(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "secret-" + UUID().uuidString
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aCredentialComesFromAFileOrStandardInputOrTheArgument() async throws {
        let path = try Self.file("s3cr3t-from-file\n")
        let parsed = try CredentialArguments.parse(
            ["security_key=@" + path, "name=-", "transactionKey=plain"], readStandardInput: { Data("s3cr3t-from-stdin\r\n".utf8) })
        #expect(parsed == ["security_key": "s3cr3t-from-file", "name": "s3cr3t-from-stdin", "transactionKey": "plain"])
    }

    @Test func badCredentialArgumentsAreRefusedNamingTheKeyNeverAValue() async throws {
        let empty = try Self.file("\n")
        let cases: [([String], String, String)] = [
            (["security_key"], "", "KEY=VALUE"), (["=x"], "", "KEY=VALUE"), (["security_key=@/nonexistent/secret"], "", "security_key"),
            (["security_key=@" + empty], "", "security_key"), (["a=-", "b=-"], "s3cr3t\n", "only one"), (["a=-"], "", "empty"),
        ]
        for (arguments, input, expected) in cases {
            do {
                _ = try CredentialArguments.parse(arguments, readStandardInput: { Data(input.utf8) })
                Issue.record("accepted \(arguments)")
            } catch let error as ValidationError {
                #expect(error.message.contains(expected), "\(error.message)")
                #expect(!error.message.contains("s3cr3t"))
            }
        }
    }

    @Test func theCommandTakesTheCredentialFromAFileAndFromStandardInput() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        let path = try Self.file("nmi-key-from-file\n")
        let fromFile = try await vault.run(["merchant", "create", "from-file", "--gateway", "nmi", "--gateway-credential", "security_key=@" + path])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        // Standard input, through a shell pipe as an operator would give it.
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("VAULT_") { environment[key] = nil }
        if let postgres = vault.postgres { environment["VAULT_DATABASE_URL"] = postgres.urlText }
        let piped = try await Subprocess(
            executable: "/bin/sh",
            arguments: ["-c", #"printf 'nmi-key-from-stdin\n' | "$0" merchant create from-stdin --gateway nmi --gateway-credential security_key=-"#,
                        VaultProcess.executable.path],
            environment: environment, directory: vault.directory.path).finish()
        #expect(piped.status == 0, "\(piped.standardError)")

        let configuration = NMIMerchantVault.configuration(vault, masterKey: "")
        var withKeyFile = configuration
        withKeyFile.keys.masterKeyFromEnvironment = nil
        let runtime = try await VaultRuntime.open(configuration: withKeyFile, logger: NMIMerchantVault.quiet)
        defer { runtime.close() }
        for (name, secret) in [("from-file", "nmi-key-from-file"), ("from-stdin", "nmi-key-from-stdin")] {
            let merchant = try #require(try await runtime.store.merchant(named: name))
            #expect(try await runtime.merchants.gatewayCredentials(merchantID: merchant.id) == ["security_key": secret])
        }
    }

    @Test func theDatabasePasswordComesFromAFile() async throws {
        let password = try Self.file("pg-pass-word\n")
        let config = try Self.file("database:\n  url: postgres://vault@127.0.0.1:5432/vault\n  passwordFile: \(password)\n")
        let loaded = try VaultConfiguration.load(path: config, environment: [:])
        #expect(loaded.database.url?.password == "pg-pass-word")
        #expect(loaded.database.url.map { "\($0)" }?.contains("pg-pass-word") == false, "the URL's description hides it")

        let twice = try Self.file("database:\n  url: postgres://vault:inline@127.0.0.1:5432/vault\n  passwordFile: \(password)\n")
        #expect(throws: ConfigurationError.self) { _ = try VaultConfiguration.load(path: twice, environment: [:]) }
        let missing = try Self.file("database:\n  url: postgres://vault@127.0.0.1:5432/vault\n  passwordFile: /nonexistent/pw\n")
        do {
            _ = try VaultConfiguration.load(path: missing, environment: [:])
            Issue.record("accepted a missing password file")
        } catch let error as ConfigurationError {
            #expect("\(error)".contains("database.passwordFile"))
        }
        // From the environment's URL too.
        let fileOnly = try Self.file("database:\n  passwordFile: \(password)\n")
        let fromEnvironment = try VaultConfiguration.load(path: fileOnly, environment: ["VAULT_DATABASE_URL": "postgres://vault@db:5432/vault"])
        #expect(fromEnvironment.database.url?.password == "pg-pass-word")
    }
}
