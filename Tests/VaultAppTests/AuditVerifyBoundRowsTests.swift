import Foundation
import StorageTestSupport
import Testing
import Vault
import VaultSQLite
@testable import VaultAppTestSupport

/// `vault audit verify` checks the bound rows as well as the chain: a row altered in the database
/// makes it exit 1 naming the row's id, in text and in `--json`; on either engine.
@Suite struct AuditVerifyBoundRowsTests {
    @Test func aKeyRaisedInSQLFailsVerifyNamingItsIdInTextAndJSON() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        try await vault.run(["merchant", "create", "acme"])
        let intact = try await vault.run(["audit", "verify", "--json"])
        #expect(intact.status == 0, "\(intact.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(intact.stdout.utf8)) as? [String: Any]
        #expect(object?["intact"] as? Bool == true)
        #expect(((object?["chain"] as? [String: Any])?["head"] as? String)?.isEmpty == false)
        #expect(((object?["rows"] as? [String: Any])?["checked"] as? [String: Int])?["api_keys"] == 1)

        let key = try await vault.withStore { store in
            let merchant = try await store.merchant(named: "acme")!
            let key = try await store.apiKeys(merchantID: merchant.id)[0].record.id
            try await TestSQL(store).run("UPDATE api_keys SET role = 'readonly' WHERE id = \(key)")
            return key
        }
        let text = try await vault.run(["audit", "verify"])
        #expect(text.status == 1)
        #expect(text.stdout.contains("audit chain intact: "), "the chain itself is untouched")
        #expect(text.stdout.contains("bound rows ALTERED in api_keys: \(key)"), "\(text.stdout)")
        let json = try await vault.run(["audit", "verify", "--json"])
        #expect(json.status == 1)
        let failed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(failed?["intact"] as? Bool == false)
        #expect(((failed?["rows"] as? [String: Any])?["tampered"] as? [String: [String]])?["api_keys"] == [key])
    }

    /// The head `verify --json` prints.
    static func head(_ vault: VaultProcess) async throws -> String {
        let result = try await vault.run(["audit", "verify", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return ((object?["chain"] as? [String: Any])?["head"] as? String) ?? ""
    }

    @Test func aKeptHeadTheChainStillHoldsPassesAndOneItNoLongerHoldsFails() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        try await vault.run(["merchant", "create", "acme"])
        let kept = try await Self.head(vault)
        try await vault.run(["merchant", "create", "beta"])
        #expect(try await vault.run(["audit", "verify", "--expect-head", kept]).status == 0, "an earlier head stays in the chain")
        let forged = String(kept.dropLast()) + (kept.hasSuffix("0") ? "1" : "0")
        let refused = try await vault.run(["audit", "verify", "--expect-head", forged])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("ROLLED BACK or cut"), "\(refused.stdout)")
        #expect(try await vault.run(["audit", "verify", "--expect-head", "not-a-head"]).status != 0)
    }

    @Test(.sqliteOnly("a rollback of the SQLite file to a copy taken earlier"))
    func aRollbackOfTheWholeDatabaseToAnEarlierConsistentStateIsFoundAgainstAKeptHead() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        try await vault.run(["merchant", "create", "acme"])
        let files = ["data/vault.sqlite", "data/vault.sqlite-wal", "data/vault.sqlite-shm"].map(vault.directory.file)
        let fileManager = FileManager.default
        for file in files where fileManager.fileExists(atPath: file) { try fileManager.copyItem(atPath: file, toPath: file + ".earlier") }
        try await vault.run(["merchant", "create", "beta"])
        let kept = try await Self.head(vault)
        for file in files {
            try? fileManager.removeItem(atPath: file)
            if fileManager.fileExists(atPath: file + ".earlier") { try fileManager.moveItem(atPath: file + ".earlier", toPath: file) }
        }
        #expect(try await vault.run(["audit", "verify"]).status == 0, "the earlier state is consistent in itself")
        let rolledBack = try await vault.run(["audit", "verify", "--expect-head", kept])
        #expect(rolledBack.status == 1)
        #expect(rolledBack.stdout.contains("ROLLED BACK or cut: it no longer holds the kept head(s) \(kept)"), "\(rolledBack.stdout)")
    }

    @Test(.enabled(if: TestEngine.current == .postgres, "PostgreSQL keeps one chain per merchant; SQLite's one chain is cut by the rollback test"))
    func aMerchantsWholeChainRemovedIsFoundAgainstAKeptHead() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        try await vault.run(["merchant", "create", "acme"])
        try await vault.run(["merchant", "create", "beta"])
        let kept = try await Self.head(vault)
        try await vault.withStore { store in
            let beta = try await store.merchant(named: "beta")!
            try await TestSQL(store).run("DELETE FROM audit_events WHERE merchant_id = \(beta.id)")
            try await TestSQL(store).run("DELETE FROM audit_chains WHERE chain LIKE \(beta.id + "%")")
        }
        let removed = try await vault.run(["audit", "verify", "--expect-head", kept])
        #expect(removed.status == 1)
        #expect(removed.stdout.contains("ROLLED BACK or cut"), "\(removed.stdout)")
    }
}
