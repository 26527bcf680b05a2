import Foundation
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// A card change's audit and webhook events are built by the domain (`SecureCardChange`,
/// `SecureCardDeletion`); an engine stores exactly those, in the change's own commit, and nothing of
/// them when it refuses the change.
@Suite("Store conformance: card changes store the domain's events")
struct SecureCardChangeConformanceTests {
    @Test func anUpdateStoresTheEventTheDomainBuiltAndARefusedInsertStoresNone() async throws {
        let fixture = try await StoreFixture(callbackURL: "https://merchant.example/hooks")
        let row = try #require(try await fixture.store.secureCard(merchantID: fixture.merchantID, reference: fixture.card.reference))
        let audit = AuditEntry(
            merchantID: fixture.merchantID, actor: "conformance", action: "secure_card.updated", objectType: "secure_card", objectID: row.reference)
        let change = try SecureCardChange.updated(row, audit: audit)
        try await fixture.store.updateSecureCard(row, change: change)
        let stored = try #require(try await fixture.sql.queryOne("SELECT type, payload FROM webhook_events WHERE id = \(change.event.id)"))
        #expect(try stored.string("type") == "secure_card.updated")
        #expect(try stored.string("payload") == change.event.body)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE actor = 'conformance'") == 1)

        // The same merchantReference again: refused, and neither of its events is stored.
        var copy = row
        copy.reference = "sc_conformance_copy"
        let refused = try SecureCardChange.registered(
            copy, audit: AuditEntry(merchantID: fixture.merchantID, actor: "refused", action: "secure_card.registered", objectType: "secure_card",
                                    objectID: copy.reference))
        await #expect(throws: SecureCardError.self) { try await fixture.store.insertSecureCard(copy, change: refused) }
        #expect(try await fixture.count("SELECT count(*) AS n FROM webhook_events WHERE id = \(refused.event.id)") == 0)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE actor = 'refused'") == 0)
    }

    @Test func aDeletionStoresItsEventNamingTheSchedulesItCancelled() async throws {
        let fixture = try await StoreFixture(callbackURL: "https://merchant.example/hooks")
        let deletion = SecureCardDeletion(
            merchantID: fixture.merchantID, reference: fixture.card.reference, purge: false,
            audit: AuditEntry(merchantID: fixture.merchantID, actor: "conformance", action: "secure_card.deleted", objectType: "secure_card",
                              objectID: fixture.card.reference),
            at: Date())
        #expect(try await fixture.store.deleteSecureCard(deletion, cancelSchedules: false) == [])
        let expected = try deletion.event(cancelledSchedules: [])
        let stored = try #require(try await fixture.sql.queryOne(
            "SELECT payload FROM webhook_events WHERE type = 'secure_card.deleted' AND merchant_id = \(fixture.merchantID)"))
        let data = try #require(try JSONSerialization.jsonObject(with: Data(try stored.string("payload").utf8)) as? [String: Any])
        let expectedData = try #require(try JSONSerialization.jsonObject(with: Data(expected.body.utf8)) as? [String: Any])
        #expect(NSDictionary(dictionary: data["data"] as? [String: Any] ?? [:]) == NSDictionary(dictionary: expectedData["data"] as? [String: Any] ?? [:]))
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE actor = 'conformance'") == 1)
    }
}
