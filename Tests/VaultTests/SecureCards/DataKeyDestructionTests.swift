import Foundation
import Testing
@testable import Vault
import Scheduler
import StorageTestSupport
import VaultSQLite

/// After data-key rotation and re-encryption, the superseded data key is destroyed once no record
/// uses it: an old sealed blob written back into its row (from a backup, by an attacker with the
/// database) no longer opens.
@Suite struct DataKeyDestructionTests {
    static func sealedColumns(_ fixture: VaultFixture, _ reference: String) async throws -> (card: [UInt8], details: [UInt8]) {
        let row = try #require(try await fixture.sql.queryOne(
            """
            SELECT sealed_card, sealed_details FROM secure_cards WHERE id = \(reference)
            """))
        return (try row.blob("sealed_card"), try row.blob("sealed_details"))
    }

    @Test func anOldBlobCopiedBackAfterRotationNoLongerOpens() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let cards = fixture.cards()
        let card = try await cards.register(registration("r-1", pan: "4242424242424242"), merchant: merchant, actor: "test")
        let old = try await Self.sealedColumns(fixture, card.reference)
        #expect(Keyring.keyVersion(ofSealedRecord: old.card) == 1)

        #expect(try await fixture.merchants.rotateDataKey(merchantID: merchant.id, actor: "test") == 2)
        #expect(try await cards.resealAll(merchantID: merchant.id) == 1)
        #expect(try await fixture.merchants.destroySupersededDataKeys(merchantID: merchant.id, actor: "test") == [1])
        #expect(try await cards.retrieve(reference: card.reference, merchant: merchant).holderName == "Grace Hopper")

        let destroyed = try #require(try await fixture.sql.queryOne(
            """
            SELECT wrapped_key IS NULL AS erased, destroyed_at FROM merchant_keys WHERE merchant_id = \(merchant.id) AND purpose = 'data'
                AND version = 1
            """))
        #expect(try destroyed.int("erased") == 1)
        #expect(try destroyed.optionalString("destroyed_at") != nil)
        let events = try await fixture.store.auditEvents(merchantID: merchant.id, filter: AuditFilter(action: "keys.data_key_destroyed"), before: nil, limit: 5)
        #expect(events.map(\.details) == [["version": "1"]])

        // The attack: the old sealed blobs and their key version written back into the row.
        try await fixture.sql.run(
            """
            UPDATE secure_cards SET sealed_card = \(old.card), sealed_details = \(old.details), key_version = 1 WHERE id = \(card.reference)
            """)
        await #expect(throws: KeyringError.keyUnavailable(merchantID: merchant.id, purpose: .data)) {
            _ = try await cards.retrieve(reference: card.reference, merchant: merchant)
        }
        // Nor in a process that never had the old key in memory.
        let fresh = SecureCardService(store: fixture.store, keyring: fixture.reopened(with: fixture.ring), verifier: StubVerifier())
        await #expect(throws: KeyringError.keyUnavailable(merchantID: merchant.id, purpose: .data)) {
            _ = try await fresh.retrieve(reference: card.reference, merchant: merchant)
        }
    }

    @Test func aVersionStillUsedByAnyStoredRecordIsKept() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let (other, _) = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(), actor: "test")
        let cards = fixture.cards()
        _ = try await cards.register(registration("r-1", pan: "4242424242424242"), merchant: merchant, actor: "test")
        _ = try await fixture.merchants.rotateDataKey(merchantID: merchant.id, actor: "test")
        // A record of another kind, in another table, still sealed with version 1 (found by its
        // version header, whatever table holds it).
        let stillSealed = try await fixture.keyring.sealRecord(Array("{}".utf8), merchantID: merchant.id, kind: "response", recordID: "k-1", dataKeyVersion: 1)
        try await fixture.sql.run(
            """
            INSERT INTO idempotency_keys (merchant_id, key, request_hash, state, status_code, response_body, created_at)
            VALUES (\(merchant.id), 'k-1', \(RandomBytes.make(32)), 'completed', 200, \(stillSealed), '2027-01-01T00:00:00.000Z')
            """)
        #expect(try await cards.resealAll(merchantID: merchant.id) == 1)
        #expect(try await fixture.merchants.destroySupersededDataKeys(merchantID: merchant.id, actor: "test") == [])
        #expect(try await fixture.keyring.openRecord(stillSealed, merchantID: merchant.id, kind: "response", recordID: "k-1").count == 2)
        // Another merchant's records never hold this merchant's key back.
        #expect(try await fixture.merchants.destroySupersededDataKeys(merchantID: other.id, actor: "test") == [])

        try await fixture.sql.run("DELETE FROM idempotency_keys")
        #expect(try await fixture.merchants.destroySupersededDataKeys(merchantID: merchant.id, actor: "test") == [1])
        #expect(try await fixture.store.dataKeySummary() == (live: 2, supersededLive: 0, destroyedAfterRotation: 1))
    }
}
