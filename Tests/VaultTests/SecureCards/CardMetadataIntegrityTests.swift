import Foundation
import Testing
@testable import Vault
import Scheduler
import StorageTestSupport
import VaultSQLite

/// The clear metadata beside a sealed card (expiry, masked number, brand,
/// entry mode, fingerprint) is bound to the sealed data as associated data. An attacker who edits
/// a column in the database gets a refusal, never a card opened with the edited value.
@Suite struct CardMetadataIntegrityTests {
    static let edits: [(column: String, sql: String)] = [
        ("expiry_year", "expiry_year = expiry_year + 5"),
        ("expiry_month", "expiry_month = CASE WHEN expiry_month = 12 THEN 1 ELSE expiry_month + 1 END"),
        ("masked_number", "masked_number = '424242******4243'"),
        ("card_type", "card_type = 'mastercard'"),
        ("entry_mode", "entry_mode = 'track'"),
        ("fingerprint", "fingerprint = (CASE WHEN substr(fingerprint, 1, 2) = 'ab' THEN 'cd' ELSE 'ab' END) || substr(fingerprint, 3)"),
    ]

    @Test(arguments: edits.map(\.column))
    func anEditedMetadataColumnIsRefusedOnRetrieveAndCharge(column: String) async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let service = fixture.cards()
        let card = try await service.register(registration("a", pan: "4242424242424242", expiry: "1230"), merchant: merchant, actor: "test")
        #expect(try await service.cardForCharge(reference: card.reference, merchantID: merchant.id).expiry == card.expiry)
        let sql = try #require(Self.edits.first { $0.column == column }).sql
        #expect(try await fixture.sql.run("UPDATE secure_cards SET \(unescaped: sql) WHERE id = \(card.reference)") == 1)
        await #expect(throws: SecureCardError.integrityFailed) { _ = try await service.cardForCharge(reference: card.reference, merchantID: merchant.id) }
        await #expect(throws: SecureCardError.integrityFailed) { _ = try await service.retrieve(reference: card.reference, merchant: merchant) }
        await #expect(throws: SecureCardError.integrityFailed) { _ = try await service.list(merchant: merchant, query: SecureCardQuery()) }
    }

    @Test func unchangedMetadataOpensAndSurvivesUpdatesAndDataKeyRotation() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let service = fixture.cards()
        let card = try await service.register(registration("a", pan: "4242424242424242"), merchant: merchant, actor: "test")
        _ = try await service.update(
            merchantReference: "a", with: SecureCardUpdate(customer: .set(CustomerUpdate(setting: Customer(city: "Arlington")))), merchant: merchant, actor: "test")
        _ = try await fixture.merchants.rotateDataKey(merchantID: merchant.id, actor: "test")
        #expect(try await service.resealAll(merchantID: merchant.id) == 1)
        #expect(try await service.retrieve(reference: card.reference, merchant: merchant).keyVersion == 2)
        #expect(try await service.cardForCharge(reference: card.reference, merchantID: merchant.id).pan.digits == "4242424242424242")
        try await fixture.sql.run("UPDATE secure_cards SET expiry_year = 2039 WHERE id = \(card.reference)")
        await #expect(throws: SecureCardError.integrityFailed) { _ = try await service.cardForCharge(reference: card.reference, merchantID: merchant.id) }
        // A tampered card stops the re-encryption pass with a clear error instead of sealing the edit in.
        _ = try await fixture.merchants.rotateDataKey(merchantID: merchant.id, actor: "test")
        await #expect(throws: SecureCardError.integrityFailed) { _ = try await service.resealAll(merchantID: merchant.id) }
    }

    /// A record sealed before binding stays readable, is bound by the start-up pass, and is then
    /// protected; flipping the `metadata_bound` flag of a bound record does not downgrade it.
    @Test func legacyUnboundRecordsAreBoundAndTheFlagCannotDowngradeABoundOne() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let service = fixture.cards()
        let legacy = try await service.register(registration("old", pan: "4242424242424242"), merchant: merchant, actor: "test")
        let bound = try await service.register(registration("new", pan: "5555555555554444"), merchant: merchant, actor: "test")
        // Rewrite "old" as the previous code sealed it: no binding, flag 0.
        let plaintext = #"{"pan":"4242424242424242","holderName":"Grace Hopper"}"#
        let unbound = try await fixture.keyring.sealRecord(Array(plaintext.utf8), merchantID: merchant.id, kind: "card", recordID: legacy.reference)
        try await fixture.sql.runAll([
            "UPDATE secure_cards SET sealed_card = \(unbound), metadata_bound = 0 WHERE id = \(legacy.reference)",
            "UPDATE secure_cards SET metadata_bound = 0 WHERE id = \(bound.reference)",
        ])
        #expect(try await service.retrieve(reference: legacy.reference, merchant: merchant).holderName == "Grace Hopper")
        await #expect(throws: SecureCardError.integrityFailed) { _ = try await service.cardForCharge(reference: bound.reference, merchantID: merchant.id) }

        #expect(try await service.bindLegacyMetadata() == 1)  // "new" does not open unbound: left alone, still refused
        #expect(try await service.cardForCharge(reference: legacy.reference, merchantID: merchant.id).pan.digits == "4242424242424242")
        let flag = try await fixture.sql.queryOne(
            """
            SELECT metadata_bound FROM secure_cards WHERE id = \(legacy.reference)
            """)?.int("metadata_bound")
        #expect(flag == 1)
        try await fixture.sql.run("UPDATE secure_cards SET expiry_year = 2039 WHERE id = \(legacy.reference)")
        await #expect(throws: SecureCardError.integrityFailed) { _ = try await service.cardForCharge(reference: legacy.reference, merchantID: merchant.id) }
        #expect(try await service.bindLegacyMetadata() == 0)
    }
}
