import Foundation
import Payments
import StorageTestSupport
import Testing
import Vault
@testable import Scheduler
@testable import VaultSQLite

/// An approved scheduled charge whose schedule has a receipt phone queues a signed
/// `receipt.sms_requested` event with the receipt's text, in the outcome's own write.
@Suite struct ScheduledSMSReceiptTests {
    static func run(pan: String, phone: String?) async throws -> (transaction: Transaction, events: [[String: Any]]) {
        let fixture = try await ChargingFixture()
        let now = Timestamp.parse("2027-01-01T00:00:00Z")!
        let merchant = try await fixture.merchant("corner-books", zone: "America/New_York")
        let card = try await fixture.card("reader-1", pan: pan, merchant: merchant, now: now)
        let created = try await fixture.schedules.create(
            NewSchedule(
                secureCardReference: card.reference, amount: 1999, currency: "USD", receiptPhone: phone,
                plan: PlanTerms(type: "delayedOnce", startDate: "2027-01-02")),
            merchant: merchant, actor: "test", now: now)
        let schedule = try await fixture.schedules.confirm(id: created.schedule.id, merchant: merchant, actor: "test", now: now)
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-01-02"))
        options.retryBackoff = .milliseconds(1)
        _ = try await fixture.runner().run(options)
        let transaction = try #require(
            try await fixture.store.transactions(
                merchantID: merchant.id, filter: TransactionFilter(scheduleID: schedule.schedule.id), beforeSequence: nil, limit: 5
            ).first)
        var events: [[String: Any]] = []
        for row in try await fixture.database.sql.query("SELECT payload FROM webhook_events WHERE type = 'receipt.sms_requested'") {
            let stored = try row.string("payload")
            #expect(!stored.contains("212 555 0143"))
            let body = try await WebhookFieldSeal(keyring: fixture.keyring).open(stored, merchantID: merchant.id)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            events.append(try #require(object["data"] as? [String: Any]))
        }
        return (transaction, events)
    }

    @Test func anApprovedChargeWithAReceiptPhoneQueuesTheTextReceipt() async throws {
        let (transaction, events) = try await Self.run(pan: "4242424242424242", phone: "+1 212 555 0143")
        #expect(transaction.status == .approved)
        let event = try #require(events.first)
        #expect(events.count == 1)
        #expect(event["phone"] as? String == "+1 212 555 0143")
        #expect(event["transactionId"] as? String == transaction.id)
        let text = try #require(event["text"] as? String)
        #expect(text.hasPrefix("corner-books: payment of $19.99 approved, visa 424242******4242, "))
        #expect(text.contains(" America/New_York, transaction \(transaction.id)"))
        #expect(text.contains(ReceiptText.localTime(transaction.updatedAt, zone: TimeZone(identifier: "America/New_York")!)))
        #expect(!text.contains("4242424242424242"))
    }

    @Test(arguments: [("4242424242424242", nil), ("4000000000000002", "+1 212 555 0143")] as [(String, String?)])
    func noReceiptWithoutAPhoneOrForADecline(pan: String, phone: String?) async throws {
        let (_, events) = try await Self.run(pan: pan, phone: phone)
        #expect(events.isEmpty)
    }

    @Test func theReceiptIsDatedOnTheMerchantsWallClockWithTheZoneNamed() throws {
        let instant = Timestamp.parse("2027-01-02T14:05:00Z")!
        #expect(ReceiptText.localTime(instant, zone: TimeZone(identifier: "America/New_York")!) == "2027-01-02 09:05")
        #expect(ReceiptText.localTime(instant, zone: TimeZone(identifier: "Asia/Tokyo")!) == "2027-01-02 23:05")
    }
}
