import Foundation
import Testing
@testable import Vault
import StorageTestSupport
import VaultSQLite

/// Authentication reads the merchant's custom-field definitions with its API key, and a
/// registration given them checks against them instead of reading them again: the same rule
/// whichever read supplied them, and never another merchant's definitions.
@Suite struct DefinitionsReadWithKeyTests {
    static let required = [CustomFieldDefinition(name: "ReferenceID", required: true, maxLength: 8)]

    func card(_ reference: String, fields: [CustomField]?) -> SecureCardRegistration {
        SecureCardRegistration(
            merchantReference: reference,
            source: CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230", holderName: "Grace Hopper", cvv: nil)),
            customFields: fields, verify: false)
    }

    @Test func authenticationReadsTheDefinitionsAsStoredAndNoneWhenNoneWereSet() async throws {
        let fixture = try await VaultFixture()
        let (merchant, key) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let before = try #require(try await fixture.merchants.authenticate(bearer: key.bearer))
        #expect(before.customFields == StoredCustomFieldDefinitions(merchantID: merchant.id, text: nil))
        #expect(try before.customFields?.definitions() == [])

        try await CustomFieldService(store: fixture.store).replace(Self.required, merchantID: merchant.id, actor: "test")
        // Verified a moment ago, the key is not read again and brings no definitions: a
        // registration then reads them itself, so it checks against the ones just set.
        let kept = try #require(try await fixture.merchants.authenticate(bearer: key.bearer))
        #expect(kept.customFields == nil)
        await #expect(throws: CardDataError.self) {
            _ = try await fixture.cards().register(card("missing", fields: nil), merchant: merchant, actor: "test", definitions: kept.customFields)
        }
        #expect(try await fixture.sql.count("SELECT count(*) FROM secure_cards") == 0)

        // A key read for the request brings them as stored.
        let another = try await fixture.merchants.issueKey(merchantName: "acme", role: .admin, actor: "test")
        let after = try #require(try await fixture.merchants.authenticate(bearer: another.bearer))
        #expect(after.customFields?.merchantID == merchant.id)
        #expect(after.customFields?.text == (try CustomFieldDefinition.storedText(Self.required)))
        #expect(try after.customFields?.definitions() == Self.required)
    }

    @Test func aRegistrationGivenTheDefinitionsReadWithItsKeyIsCheckedAgainstThem() async throws {
        let fixture = try await VaultFixture()
        let (merchant, key) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        try await CustomFieldService(store: fixture.store).replace(Self.required, merchantID: merchant.id, actor: "test")
        let definitions = try #require(try await fixture.merchants.authenticate(bearer: key.bearer)).customFields
        let cards = fixture.cards()

        // The required field missing, then too long: refused, nothing stored.
        await #expect(throws: CardDataError.self) {
            _ = try await cards.register(card("missing", fields: nil), merchant: merchant, actor: "test", definitions: definitions)
        }
        await #expect(throws: CardDataError.self) {
            _ = try await cards.register(
                card("too-long", fields: [CustomField(name: "ReferenceID", value: "123456789")]), merchant: merchant, actor: "test",
                definitions: definitions)
        }
        #expect(try await fixture.sql.count("SELECT count(*) FROM secure_cards") == 0)

        let stored = try await cards.register(
            card("given", fields: [CustomField(name: "ReferenceID", value: "R-1")]), merchant: merchant, actor: "test", definitions: definitions)
        #expect(stored.customFields == [CustomField(name: "ReferenceID", value: "R-1")])
    }

    @Test func definitionsOfAnotherMerchantAreNotUsedAndTheMerchantsOwnAreRead() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let (other, otherKey) = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(), actor: "test")
        try await CustomFieldService(store: fixture.store).replace(Self.required, merchantID: merchant.id, actor: "test")
        let othersDefinitions = try #require(try await fixture.merchants.authenticate(bearer: otherKey.bearer)).customFields
        #expect(othersDefinitions?.merchantID == other.id && othersDefinitions?.text == nil)

        // The other merchant's (none) would let the card in without its required field.
        await #expect(throws: CardDataError.self) {
            _ = try await fixture.cards().register(card("crossed", fields: nil), merchant: merchant, actor: "test", definitions: othersDefinitions)
        }
        #expect(try await fixture.sql.count("SELECT count(*) FROM secure_cards") == 0)
    }
}
