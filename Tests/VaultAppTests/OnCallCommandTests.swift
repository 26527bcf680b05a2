import Foundation
import StorageTestSupport
import Testing
import Vault
import VaultSQLite
@testable import VaultApp
@testable import VaultAppTestSupport

/// What the on-call reads: `merchant show` (credential names, never values), `keys status`
/// against the cryptoperiod, and the server's one log line when it picks up a rotation.
@Suite struct OnCallCommandTests {
    @Test func merchantShowNamesTheCredentialsSetAndMissingNeverTheirValues() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        let secret = "nmiSecretValue7731"
        #expect(try await vault.run(["merchant", "create", "acme", "--gateway", "nmi", "--gateway-credential", "security_key=" + secret]).status == 0)
        let shown = try await vault.run(["merchant", "show", "acme"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("credentials set:        security_key"))
        #expect(shown.stdout.contains("credentials missing:    none"))
        #expect(shown.stdout.contains("gateway:                nmi"))
        let json = try await vault.run(["merchant", "show", "acme", "--json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["credentialsSet"] as? [String] == ["security_key"])
        #expect(object["credentialsMissing"] as? [String] == [])
        #expect(object["gateway"] as? String == "nmi")
        for output in [shown.stdout, shown.stderr, json.stdout, json.stderr] { #expect(!output.contains(secret)) }

        let missing = try await vault.run(["merchant", "show", "nobody"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no merchant 'nobody'"))
    }

    @Test func keysStatusShowsTheCurrentVersionsAgeAndWarnsPastTheCryptoperiod() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        let fresh = try await vault.run(["keys", "status"])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(fresh.stdout.contains("0 days old (cryptoperiod 365 days)"))
        #expect(!fresh.stdout.contains("warning"))

        let old = Date().addingTimeInterval(-400 * 86_400)
        try await vault.withStore { store in _ = try await TestSQL(store).run("UPDATE kek_versions SET created_at = \(Timestamp.string(old))") }
        let stale = try await vault.run(["keys", "status"])
        #expect(stale.stdout.contains("warning: master key version 1 is 400 days old, past keys.cryptoperiodDays (365)"))
        let json = try await vault.run(["keys", "status", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["pastCryptoperiod"] as? Bool == true)
        #expect(object["currentVersionAgeDays"] as? Int == 400)

        try FileManager.default.createDirectory(atPath: vault.directory.file("config"), withIntermediateDirectories: true)
        try "keys:\n  cryptoperiodDays: 500\n".write(toFile: vault.directory.file("config/vault.yaml"), atomically: true, encoding: .utf8)
        let longer = try await vault.run(["keys", "status"])
        #expect(longer.stdout.contains("400 days old (cryptoperiod 500 days)"))
        #expect(!longer.stdout.contains("warning"))
    }

    @Test func aServingVaultLogsOnceWhenItPicksUpARotation() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        #expect(try await vault.run(["merchant", "create", "acme"]).status == 0)
        let server = try vault.start(["serve"], environment: ["VAULT_PORT": "0"])
        #expect(try await ServerProcess.waitForPort(server) != nil)
        let rotation = try await vault.run(["keys", "rotate"])
        #expect(rotation.status == 0, "\(rotation.stderr)")
        kill(server.pid, SIGHUP)
        let line = await server.standardError.wait(until: Date().addingTimeInterval(60)) { text in
            text.split(separator: "\n").first { $0.contains("master key rotation picked up") }.map(String.init)
        }
        server.terminate()
        let finished = await server.finish()
        let found = try #require(line)
        #expect(found.contains("\"version\":\"2\""))
        #expect(found.contains("\"previousVersion\":\"1\""))
        #expect(finished.standardError.components(separatedBy: "master key rotation picked up").count - 1 == 1)
    }
}
