import Foundation
import Payments
import StorageTestSupport
import Testing
import Payments
import Vault
@testable import Scheduler
@testable import VaultSQLite

/// A scheduled charge names its card's merchantReference, and its webhook carries
/// what a payment callback carries (card brand, masked number, state, error code and text).
@Suite struct ScheduledChargeCallbackTests {
    static func chargeOnce(pan: String) async throws -> (fixture: ChargingFixture, transaction: Transaction, payload: [String: Any]) {
        let fixture = try await ChargingFixture()
        let now = Timestamp.parse("2027-01-01T00:00:00Z")!
        let merchant = try await fixture.merchant("callbacks", zone: "UTC")
        let card = try await fixture.card("customer-7", pan: pan, holderName: "Ada Lovelace", merchant: merchant, now: now)
        let schedule = try await fixture.schedule(
            card, amount: 1999, currency: "USD", plan: PlanTerms(type: "delayedOnce", startDate: "2027-01-02"), merchant: merchant, now: now)
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-01-02"))
        options.retryBackoff = .milliseconds(1)
        _ = try await fixture.runner().run(options)
        let transaction = try #require(
            try await fixture.store.transactions(merchantID: merchant.id, filter: TransactionFilter(scheduleID: schedule.schedule.id), beforeSequence: nil, limit: 5).first)
        let payload = try await fixture.database.sql.queryOne(
            """
            SELECT payload FROM webhook_events WHERE type LIKE 'transaction.%' AND payload LIKE \("%" + transaction.id + "%")
            """)?.string("payload")
        let stored = try #require(payload)
        #expect(!stored.contains("Ada Lovelace"))
        let body = try await WebhookFieldSeal(keyring: fixture.keyring).open(stored, merchantID: merchant.id)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        return (fixture, transaction, try #require(object["data"] as? [String: Any]))
    }

    @Test func anApprovedScheduledChargeAndItsWebhookNameTheCardAndTheSeedsState() async throws {
        let (_, transaction, data) = try await Self.chargeOnce(pan: "4242424242424242")
        #expect(transaction.merchantReference == "customer-7")
        #expect(data["merchantReference"] as? String == "customer-7")
        #expect(data["cardType"] as? String == "visa")
        #expect(data["maskedNumber"] as? String == "424242******4242")
        #expect(data["state"] as? Int == 400)
        #expect(data["subState"] as? Int == 411)
        #expect(data["errorCode"] is NSNull)
        #expect(data["errorMessage"] is NSNull)
    }

    @Test func aScheduledChargesCallbackNamesTheCardHolderAndTheMerchant() async throws {
        for pan in ["4242424242424242", "4000000000000002"] {
            let (_, _, data) = try await Self.chargeOnce(pan: pan)
            #expect(data["holderName"] as? String == "Ada Lovelace")
            #expect(data["merchantName"] as? String == "callbacks")
        }
    }

    @Test func aDeclinedScheduledChargesWebhookCarriesTheErrorCodeAndText() async throws {
        let (_, transaction, data) = try await Self.chargeOnce(pan: "4000000000000002")
        #expect(transaction.status == .declined)
        #expect(data["merchantReference"] as? String == "customer-7")
        #expect(data["state"] as? Int == 400)
        #expect(data["subState"] as? Int == 412)
        #expect(data["errorCode"] as? String == "card_declined")
        #expect((data["errorMessage"] as? String)?.isEmpty == false)
        #expect(data["maskedNumber"] as? String == "400000******0002")
    }
}
