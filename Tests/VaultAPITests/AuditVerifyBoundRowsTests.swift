import Foundation
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `vault audit verify` checks the bound rows as well as the chain: a row altered in the database
/// makes it exit 1 naming the row's id, in text and in `--json`; on either engine.
@Suite struct AuditVerifyBoundRowsTests {
    @Test func aKeyRaisedInSQLFailsVerifyNamingItsIdInTextAndJSON() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try vault.initialize()
        try vault.run(["merchant", "create", "acme"])
        let intact = try vault.run(["audit", "verify", "--json"])
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
        let text = try vault.run(["audit", "verify"])
        #expect(text.status == 1)
        #expect(text.stdout.contains("audit chain intact: "), "the chain itself is untouched")
        #expect(text.stdout.contains("bound rows ALTERED in api_keys: \(key)"), "\(text.stdout)")
        let json = try vault.run(["audit", "verify", "--json"])
        #expect(json.status == 1)
        let failed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(failed?["intact"] as? Bool == false)
        #expect(((failed?["rows"] as? [String: Any])?["tampered"] as? [String: [String]])?["api_keys"] == [key])
    }
}
