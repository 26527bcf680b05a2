import Foundation
import StorageTestSupport
import Testing
import Vault
import VaultSQLite
@testable import VaultAppTestSupport

/// `vault audit verify` on a merchant's audit chain deleted whole in SQL, with the engine's own head
/// record: it exits 1 naming the chain, on either engine; untouched, it exits 0.
@Suite struct AuditChainDeletionTests {
    @Test func aMerchantsChainDeletedWholeInSQLFailsVerifyWithoutAKeptHead() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.run(["keys", "init"]).status == 0)
        #expect(try await vault.run(["migrate"]).status == 0)
        #expect(try await vault.run(["merchant", "create", "acme"]).status == 0)
        #expect(try await vault.run(["merchant", "create", "beta"]).status == 0)
        let untouched = try await vault.run(["audit", "verify"])
        #expect(untouched.status == 0, "\(untouched.stdout)\(untouched.stderr)")

        let chain = try await vault.withStore { store in
            let sql = TestSQL(store)
            if sql.engine == .sqlite {
                // SQLite has one chain: every event, and the head record with them.
                try await sql.runAll(["DELETE FROM audit_events", "DELETE FROM meta WHERE key = 'audit_head'"])
                return AuditChainBinding.singleChain
            }
            let beta = try #require(try await store.merchant(named: "beta"))
            try await sql.runAll(["DELETE FROM audit_events WHERE chain = \(beta.id)", "DELETE FROM audit_chains WHERE chain = \(beta.id)"])
            return beta.id
        }
        let deleted = try await vault.run(["audit", "verify"])
        #expect(deleted.status == 1)
        #expect(deleted.stdout.contains("chain \(chain): ") && deleted.stdout.contains("the whole chain was deleted"), "\(deleted.stdout)")
    }
}
