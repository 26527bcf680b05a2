import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultSQLite

/// A one-off payment's callback names the card holder and the merchant, as a payment callback
/// does; so does the callback of its follow-ups, from the stored card.
@Suite struct OneOffCallbackTests {
    /// The callback's `data` as it is sent (sealed fields opened); the stored payload must not hold
    /// any of `clear` (holder data is sealed at rest).
    static func callback(of transactionID: String, in fixture: ChargingFixture, merchantID: String, clear: [String] = []) async throws
        -> [String: Any]
    {
        let payload = try await fixture.database.sql.queryOne(
            "SELECT payload FROM webhook_events WHERE type LIKE 'transaction.%' AND payload LIKE \("%" + transactionID + "%")")?.string("payload")
        let stored = try #require(payload)
        for value in clear { #expect(!stored.contains(value)) }
        let body = try await WebhookFieldSeal(keyring: fixture.keyring).open(stored, merchantID: merchantID)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        return try #require(object["data"] as? [String: Any])
    }

    @Test func aSaleAndItsVoidCallbacksNameTheCardHolderAndTheMerchant() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("corner-books", zone: "UTC")
        let card = try await fixture.card("reader-1", pan: "4242424242424242", holderName: "Grace Hopper", merchant: merchant, now: Date())
        let service = TransactionService(
            store: fixture.store, cards: fixture.cards, gateways: MerchantGateways(registry: fixture.registry, merchants: fixture.merchants))
        let sale = try await service.create(
            try NewTransaction(type: "sale", amount: 1250, currency: "USD", secureCardReference: card.reference, merchant: merchant),
            merchant: merchant, actor: "test")
        let saleCallback = try await Self.callback(of: sale.id, in: fixture, merchantID: merchant.id, clear: ["Grace Hopper"])
        #expect(saleCallback["holderName"] as? String == "Grace Hopper")
        #expect(saleCallback["merchantName"] as? String == "corner-books")

        let void = try await service.void(id: sale.id, merchant: merchant, actor: "test")
        let voidCallback = try await Self.callback(of: void.id, in: fixture, merchantID: merchant.id, clear: ["Grace Hopper"])
        #expect(voidCallback["holderName"] as? String == "Grace Hopper")
        #expect(voidCallback["merchantName"] as? String == "corner-books")
    }

    @Test func aRawCardSaleWithoutANameHasANullHolderName() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("corner-books", zone: "UTC")
        let service = TransactionService(
            store: fixture.store, cards: fixture.cards, gateways: MerchantGateways(registry: fixture.registry, merchants: fixture.merchants))
        let order = try NewTransaction(
            type: "sale", amount: 700, currency: "USD",
            source: CardSource(method: "keyed", card: CardInput(number: "4242424242424242", expiryDate: "1230")), merchant: merchant)
        let sale = try await service.create(order, merchant: merchant, actor: "test")
        let callback = try await Self.callback(of: sale.id, in: fixture, merchantID: merchant.id)
        #expect(callback["holderName"] is NSNull)
        #expect(callback["merchantName"] as? String == "corner-books")
    }
}
