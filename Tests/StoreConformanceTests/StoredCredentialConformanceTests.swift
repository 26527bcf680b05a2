import Foundation
import Payments
import StorageTestSupport
import Testing
import Vault

/// Stored credentials read a batch of cards at once (the charge runner reads its batch's cards in
/// one statement): each card's record for the gateway asked, none of another gateway or merchant.
@Suite("Store conformance: stored credentials of several cards")
struct StoredCredentialConformanceTests {
    @Test func theIDsOfSeveralCardsAreReadAtOnceForOneMerchantAndGateway() async throws {
        let fixture = try await StoreFixture()
        var cards = [fixture.card]
        for (index, number) in ["5555555555554444", "4111111111111111"].enumerated() {
            cards.append(try await fixture.cards.register(
                SecureCardRegistration(
                    merchantReference: "ref-\(index + 2)",
                    source: CardSource(method: "ocr", card: CardInput(number: number, expiryDate: "1230")), verify: false),
                merchant: fixture.merchant, actor: "test", now: Date()))
        }
        let credentials = StoredCredentials(store: fixture.store, keyring: fixture.keyring)
        for (card, id) in zip(cards.prefix(2), ["100000000000001", "100000000000002"]) {
            try await credentials.record(
                id, secureCardReference: card.reference, merchantID: fixture.merchantID, gateway: "sandbox", transactionID: nil, replacing: true)
        }
        // The third card has an id with another gateway only.
        try await credentials.record(
            "300000000000003", secureCardReference: cards[2].reference, merchantID: fixture.merchantID, gateway: "nmi", transactionID: nil,
            replacing: true)

        let references = cards.map(\.reference) + ["sc_unknown"]
        let kept = try await credentials.originalNetworkTransactionIDs(
            secureCardReferences: references, merchantID: fixture.merchantID, gateway: "sandbox")
        #expect(kept == [cards[0].reference: "100000000000001", cards[1].reference: "100000000000002"])
        #expect(
            try await credentials.originalNetworkTransactionIDs(secureCardReferences: references, merchantID: fixture.merchantID, gateway: "nmi")
                == [cards[2].reference: "300000000000003"])
        // Each as the one-card read gives it.
        for card in cards {
            let one = try await credentials.originalNetworkTransactionID(
                secureCardReference: card.reference, merchantID: fixture.merchantID, gateway: "sandbox")
            #expect(kept[card.reference] == one)
        }

        #expect(try await fixture.store.storedCredentials(merchantID: "mer_other", secureCardReferences: references, gateway: "sandbox").isEmpty)
        #expect(try await fixture.store.storedCredentials(merchantID: fixture.merchantID, secureCardReferences: [], gateway: "sandbox").isEmpty)
    }
}
