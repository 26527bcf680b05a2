import Foundation
import StorageTestSupport
import Testing
import Vault

/// A charge run's batch opens its cards in one read: each card as `cardForCharge` opens it alone,
/// the merchant's only, a deleted or purged card left out as `cardForCharge` refuses it.
@Suite("Store conformance: a batch's cards read at once")
struct ChargeCardBatchConformanceTests {
    @Test func aBatchsCardsAreOpenedAsEachAloneAndOnlyLiveCardsOfTheMerchant() async throws {
        let fixture = try await StoreFixture()
        var cards = [fixture.card]
        for (index, number) in ["5555555555554444", "4111111111111111", "4012888888881881"].enumerated() {
            cards.append(try await fixture.cards.register(
                SecureCardRegistration(
                    merchantReference: "ref-\(index + 2)",
                    source: CardSource(method: "ocr", card: CardInput(number: number, expiryDate: "1230", holderName: "Card Holder")),
                    verify: false),
                merchant: fixture.merchant, actor: "test", now: Date()))
        }
        _ = try await fixture.cards.delete(
            merchantReference: cards[2].merchantReference, cancelSchedules: false, purge: false, merchant: fixture.merchant, actor: "test")
        _ = try await fixture.cards.delete(
            merchantReference: cards[3].merchantReference, cancelSchedules: false, purge: true, merchant: fixture.merchant, actor: "test")
        let references = cards.map(\.reference) + ["sc_unknown"]

        let rows = try await fixture.store.secureCards(merchantID: fixture.merchantID, references: references)
        #expect(Set(rows.map(\.reference)) == Set(cards.map(\.reference)), "live and deleted cards are rows; an unknown token is none")
        #expect(try await fixture.store.secureCards(merchantID: "mer_other", references: references).isEmpty)
        #expect(try await fixture.store.secureCards(merchantID: fixture.merchantID, references: []).isEmpty)

        let opened = try await fixture.cards.cardsForCharge(references: references, merchantID: fixture.merchantID)
        #expect(Set(opened.keys) == [cards[0].reference, cards[1].reference])
        for card in cards {
            let alone = try? await fixture.cards.cardForCharge(reference: card.reference, merchantID: fixture.merchantID)
            let together = opened[card.reference]
            #expect(alone?.pan.digits == together?.pan.digits)
            #expect(alone?.expiry == together?.expiry)
            #expect(alone?.holderName == together?.holderName)
            #expect(alone?.merchantReference == together?.merchantReference)
        }
    }
}
