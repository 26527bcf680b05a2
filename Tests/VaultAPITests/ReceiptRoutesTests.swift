import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Payments
import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// E-mail receipts over HTTP: a `receiptEmail` is refused 422 `receipts_not_configured` (naming
/// the field, nothing stored) while the vault has no usable mail program, and taken beside it with
/// one; `GET /v1/receipts` lists receipts with their delivery state and the masked recipient.
@Suite struct ReceiptRoutesTests {
    static let email = #", "receiptEmail": "ada.lovelace@example.org""#

    @Test(arguments: ["/nonexistent/sendmail -t -i", "", "sendmail -t -i"])
    func aReceiptEmailIsRefusedWithoutAUsableMailProgramAndTheSameRequestWithoutItIsTaken(command: String) async throws {
        let fixture = try await APIFixture { $0.receipts.sendmailCommand = command }
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1")).status == .created)
            let refused = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: ScheduleRoutesTests.monthly(extra: Self.email))
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            #expect(refused.error["code"] as? String == "receipts_not_configured")
            #expect(refused.error["param"] as? String == "receiptEmail")
            #expect(!refused.text.contains("lovelace"))
            #expect((try await client.send(.get, "/v1/schedules", key: fixture.adminA).json["data"] as? [Any])?.isEmpty == true)

            let taken = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: ScheduleRoutesTests.monthly())
            #expect(taken.status == .created, "\(taken.text)")
            let id = try #require(taken.json["id"] as? String)
            let patched = try await client.send(.patch, "/v1/schedules/\(id)", key: fixture.adminA, json: #"{"receiptEmail": "ada.lovelace@example.org"}"#)
            #expect(patched.status == .unprocessableContent)
            #expect(patched.error["code"] as? String == "receipts_not_configured")
            #expect(try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA).json["receiptEmail"] == nil)
        }
    }

    @Test func theReceiptsOfApprovedChargesAreListedWithTheirStateAndTheRecipientMasked() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1")).status == .created)
            let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: ScheduleRoutesTests.monthly(extra: Self.email))
            #expect(created.status == .created, "\(created.text)")
            let id = try #require(created.json["id"] as? String)
            #expect(try await client.send(.post, "/v1/schedules/\(id)/confirm", key: fixture.adminA).status == .ok)
            // The first step (2030-01-31 09:00 New York) is charged.
            var options = fixture.runtime.chargeRunOptions(asOf: Timestamp.parse("2030-02-01T00:00:00Z")!)
            options.merchantID = fixture.merchantA.id
            _ = try await fixture.runtime.chargeRunner(logger: fixture.logger).run(options)
            _ = try await fixture.runtime.receiptDeliverer(logger: fixture.logger).deliverDue(now: Date().addingTimeInterval(1))

            let listed = try await client.send(.get, "/v1/receipts?status=sent", key: fixture.readonlyA)
            #expect(listed.status == .ok, "\(listed.text)")
            let receipts = try #require(listed.json["data"] as? [[String: Any]])
            #expect(receipts.count == 1)
            let receipt = try #require(receipts.first)
            #expect(receipt["recipient"] as? String == "a***@example.org")
            #expect(receipt["event"] as? String == "paid" && receipt["status"] as? String == "sent" && receipt["attempts"] as? Int == 0)
            #expect(!listed.text.contains("lovelace"))
            #expect(try fixture.sendmail.messages().count == 1)
            #expect(try fixture.sendmail.messages().first?.contains("To: ada.lovelace@example.org") == true)
            #expect((try await client.send(.get, "/v1/receipts?status=pending", key: fixture.adminA).json["data"] as? [Any])?.isEmpty == true)
            // Merchant B sees none of A's receipts.
            #expect((try await client.send(.get, "/v1/receipts", key: fixture.adminB).json["data"] as? [Any])?.isEmpty == true)

            let bad = try await client.send(.get, "/v1/receipts?status=delivered", key: fixture.adminA)
            #expect(bad.status == .unprocessableContent)
            #expect(bad.error["param"] as? String == "status")
            #expect(try await client.send(.get, "/v1/receipts", key: fixture.runnerA).status == .forbidden)
        }
    }

    @Test func aSaleAndItsRefundAndVoidWithAReceiptEmailEachQueueTheirReceiptAndADeclineNone() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 1250, extra: Self.email))
            #expect(sale.status == .created, "\(sale.text)")
            let saleID = try #require(sale.json["id"] as? String)
            let refund = try await client.send(
                .post, "/v1/transactions/\(saleID)/refund", key: fixture.adminA, json: #"{"amount": 250, "receiptEmail": "grace@example.org"}"#)
            #expect(refund.status == .created, "\(refund.text)")
            let refundID = try #require(refund.json["id"] as? String)
            let other = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 990))
            let otherID = try #require(other.json["id"] as? String)
            let void = try await client.send(.post, "/v1/transactions/\(otherID)/void", key: fixture.adminA, json: #"{"receiptEmail": "grace@example.org"}"#)
            #expect(void.status == .created, "\(void.text)")
            let voidID = try #require(void.json["id"] as? String)
            let declined = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale("4000000000000002", amount: 700, extra: Self.email))
            #expect(declined.status.code == 402)

            let listed = try #require(try await client.send(.get, "/v1/receipts", key: fixture.adminA).json["data"] as? [[String: Any]])
            let events = Dictionary(uniqueKeysWithValues: listed.compactMap { receipt in
                (receipt["transactionId"] as? String).map { ($0, receipt["event"] as? String ?? "") }
            })
            #expect(events == [saleID: "paid", refundID: "refunded", voidID: "voided"])
            #expect(try await fixture.count("email_receipts") == 3)

            _ = try await fixture.runtime.receiptDeliverer(logger: fixture.logger).deliverDue(now: Date().addingTimeInterval(1))
            let sent = try await fixture.runtime.store.receipts(merchantID: fixture.merchantA.id, status: nil, beforeSequence: nil, limit: 10)
            #expect(sent.map(\.status) == [.sent, .sent, .sent], "\(sent.map { "\($0.status) \($0.lastError ?? "")" })")
            let messages = try fixture.sendmail.messages()
            #expect(messages.count == 3)
            let refundMessage = try #require(messages.first { $0.contains("Transaction: \(refundID)") })
            #expect(refundMessage.contains("To: grace@example.org") && refundMessage.contains("Refunded: $2.50"))
            #expect(refundMessage.contains("Card: visa 424242******4242") && !refundMessage.contains("4242424242424242"))
            #expect(messages.contains { $0.contains("Transaction: \(saleID)") && $0.contains("Paid: $12.50") && $0.contains("To: ada.lovelace@example.org") })
            #expect(messages.contains { $0.contains("Transaction: \(voidID)") && $0.contains("Voided: $9.90") })
        }
    }

    @Test func aRefundAndAVoidWithoutAnAddressSendTheirReceiptsToTheAddressTheSaleKeptAndOneTheyGiveWins() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 1250, extra: Self.email))
            let saleID = try #require(sale.json["id"] as? String)
            #expect(!sale.text.contains("ada.lovelace@"), "the kept address is never shown")
            let refund = try await client.send(.post, "/v1/transactions/\(saleID)/refund", key: fixture.adminA, json: #"{"amount": 250}"#)
            #expect(refund.status == .created, "\(refund.text)")
            let refundID = try #require(refund.json["id"] as? String)
            let second = try await client.send(
                .post, "/v1/transactions/\(saleID)/refund", key: fixture.adminA, json: #"{"amount": 100, "receiptEmail": "grace@example.org"}"#)
            let secondID = try #require(second.json["id"] as? String)
            // An authorization's address goes to its capture, and from the capture to its refund.
            let auth = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 4000, type: "authorize", extra: Self.email))
            #expect(auth.status == .created, "\(auth.text)")
            let authID = try #require(auth.json["id"] as? String)
            let capture = try await client.send(.post, "/v1/transactions/\(authID)/capture", key: fixture.adminA, json: #"{"amount": 3000}"#)
            #expect(capture.status == .created, "\(capture.text)")
            let captureID = try #require(capture.json["id"] as? String)
            let void = try await client.send(.post, "/v1/transactions/\(captureID)/void", key: fixture.adminA, json: "{}")
            #expect(void.status == .created, "\(void.text)")
            let voidID = try #require(void.json["id"] as? String)

            _ = try await fixture.runtime.receiptDeliverer(logger: fixture.logger).deliverDue(now: Date().addingTimeInterval(1))
            let messages = try fixture.sendmail.messages()
            func message(_ id: String) -> String? { messages.first { $0.contains("Transaction: \(id)") } }
            #expect(message(saleID)?.contains("To: ada.lovelace@example.org") == true)
            #expect(message(refundID)?.contains("To: ada.lovelace@example.org") == true)
            #expect(message(refundID)?.contains("Refunded: $2.50") == true)
            #expect(message(secondID)?.contains("To: grace@example.org") == true)
            #expect(message(captureID)?.contains("To: ada.lovelace@example.org") == true)
            #expect(message(voidID)?.contains("To: ada.lovelace@example.org") == true)
            #expect(message(authID) == nil, "an authorization moves no money and gets no receipt")
            #expect(messages.count == 5)
        }
    }

    @Test func aDataKeyRotationReSealsKeptAddressesAndQueuedReceiptsSoTheyAreSentAfterTheOldKeyIsDestroyed() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 1250, extra: Self.email))
            let saleID = try #require(sale.json["id"] as? String)
            let merchantID = fixture.merchantA.id
            #expect(try await fixture.runtime.merchants.rotateDataKey(merchantID: merchantID, actor: "test") == 2)
            let runtime = fixture.runtime
            #expect(try await TransactionReceiptAddress(keyring: runtime.keyring).resealAll(in: runtime.store, merchantID: merchantID) == 1)
            #expect(try await ReceiptRecipientReseal(store: runtime.store, keyring: runtime.keyring).resealAll(merchantID: merchantID) == 1)
            #expect(try await ReceiptRecipientReseal(store: runtime.store, keyring: runtime.keyring).resealAll(merchantID: merchantID) == 0)
            #expect(try await runtime.merchants.destroySupersededDataKeys(merchantID: merchantID, actor: "test") == [1])

            let refund = try await client.send(.post, "/v1/transactions/\(saleID)/refund", key: fixture.adminA, json: #"{"amount": 250}"#)
            let refundID = try #require(refund.json["id"] as? String)
            let report = try await runtime.receiptDeliverer(logger: fixture.logger).deliverDue(now: Date().addingTimeInterval(1))
            #expect(report == ReceiptDeliveryReport(sent: 2))
            let messages = try fixture.sendmail.messages()
            #expect(messages.contains { $0.contains("Transaction: \(saleID)") && $0.contains("To: ada.lovelace@example.org") })
            #expect(messages.contains { $0.contains("Transaction: \(refundID)") && $0.contains("To: ada.lovelace@example.org") })
        }
    }

    /// A schedule due today on the card `card`, with `extra` fields, confirmed; its id.
    static func scheduleDueToday(_ client: any TestClientProtocol, _ fixture: APIFixture, card: String, amount: Int, extra: String = "")
        async throws -> String
    {
        let today = String(Timestamp.string(Date()).prefix(10))
        let created = try await client.send(
            .post, "/v1/schedules", key: fixture.adminA,
            json: #"{"merchantReference": "\#(card)", "amount": \#(amount), "currency": "USD", "type": "delayedOnce", "startDate": "\#(today)", "hour": 0, "minute": 0, "timeZone": "UTC"\#(extra)}"#)
        let id = try #require(created.json["id"] as? String, "\(created.text)")
        let confirmed = try await client.send(.post, "/v1/schedules/\(id)/confirm", key: fixture.adminA)
        #expect(confirmed.status.code / 100 == 2, "\(confirmed.text)")
        return id
    }

    /// The id of the transaction that charged the schedule's first step.
    static func charge(of schedule: String, _ client: any TestClientProtocol, _ fixture: APIFixture) async throws -> String {
        let steps = try await client.send(.get, "/v1/schedules/\(schedule)/steps", key: fixture.adminA)
        let step = try #require((steps.json["data"] as? [[String: Any]])?.first)
        let charge = try #require((step["transactions"] as? [[String: Any]])?.first)
        #expect(charge["status"] as? String == "approved")
        return try #require(charge["id"] as? String)
    }

    @Test func aRefundOrVoidOfAScheduledChargeWithoutAnAddressSendsItsReceiptToTheScheduleAddressAndOfOneWithoutNone() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            for card in ["refunded", "voided", "silent"] {
                _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard(card, verify: false))
            }
            let refunded = try await Self.scheduleDueToday(client, fixture, card: "refunded", amount: 4200, extra: Self.email)
            let voided = try await Self.scheduleDueToday(client, fixture, card: "voided", amount: 990, extra: Self.email)
            let silent = try await Self.scheduleDueToday(client, fixture, card: "silent", amount: 1500)
            let runtime = fixture.runtime
            #expect(try await runtime.chargeRunner(logger: fixture.logger).run(runtime.chargeRunOptions(asOf: Date())).settled)
            let refundedCharge = try await Self.charge(of: refunded, client, fixture)
            let voidedCharge = try await Self.charge(of: voided, client, fixture)
            let silentCharge = try await Self.charge(of: silent, client, fixture)

            let refund = try await client.send(.post, "/v1/transactions/\(refundedCharge)/refund", key: fixture.adminA, json: #"{"amount": 1000}"#)
            #expect(refund.status == .created, "\(refund.text)")
            let refundID = try #require(refund.json["id"] as? String)
            #expect(!refund.text.contains("ada.lovelace@"), "the inherited address is never shown")
            let void = try await client.send(.post, "/v1/transactions/\(voidedCharge)/void", key: fixture.adminA, json: "{}")
            #expect(void.status == .created, "\(void.text)")
            let voidID = try #require(void.json["id"] as? String)
            let silentRefund = try await client.send(.post, "/v1/transactions/\(silentCharge)/refund", key: fixture.adminA, json: #"{"amount": 500}"#)
            #expect(silentRefund.status == .created, "\(silentRefund.text)")
            let silentRefundID = try #require(silentRefund.json["id"] as? String)

            _ = try await runtime.receiptDeliverer(logger: fixture.logger).deliverDue(now: Date().addingTimeInterval(1))
            let messages = try fixture.sendmail.messages()
            func message(_ id: String) -> String? { messages.first { $0.contains("Transaction: \(id)") } }
            #expect(message(refundID)?.contains("To: ada.lovelace@example.org") == true)
            #expect(message(refundID)?.contains("Refunded: $10.00") == true)
            #expect(message(voidID)?.contains("To: ada.lovelace@example.org") == true)
            #expect(message(voidID)?.contains("Voided: $9.90") == true)
            #expect(message(silentCharge) == nil && message(silentRefundID) == nil, "a schedule without an address sends nothing")
            // The two charges' own receipts and the refund's and the void's.
            #expect(messages.count == 4)
        }
    }

    @Test func aRefundOfASaleWithoutAReceiptAddressSendsNothing() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 1250))
            let saleID = try #require(sale.json["id"] as? String)
            let refund = try await client.send(.post, "/v1/transactions/\(saleID)/refund", key: fixture.adminA, json: #"{"amount": 250}"#)
            #expect(refund.status == .created, "\(refund.text)")
            let void = try await client.send(.post, "/v1/transactions/\(saleID)/void", key: fixture.adminA, json: "{}")
            #expect(void.status.code < 500, "\(void.text)")
            #expect(try await fixture.count("email_receipts") == 0)
            _ = try await fixture.runtime.receiptDeliverer(logger: fixture.logger).deliverDue(now: Date().addingTimeInterval(1))
            #expect(try fixture.sendmail.messages().isEmpty)
        }
    }

    @Test func aSaleOrRefundAskingForAReceiptWithoutAUsableMailProgramIsRefusedAndRecordsNothing() async throws {
        let fixture = try await APIFixture { $0.receipts.from = nil }
        try await fixture.live { client in
            let refused = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(extra: Self.email))
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            #expect(refused.error["code"] as? String == "receipts_not_configured" && refused.error["param"] as? String == "receiptEmail")
            #expect(try await fixture.count("transactions") == 0)

            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale())
            #expect(sale.status == .created)
            let saleID = try #require(sale.json["id"] as? String)
            let refund = try await client.send(.post, "/v1/transactions/\(saleID)/refund", key: fixture.adminA, json: #"{"receiptEmail": "grace@example.org"}"#)
            #expect(refund.status == .unprocessableContent)
            #expect(refund.error["code"] as? String == "receipts_not_configured")
            #expect(try await fixture.count("transactions") == 1)
            #expect(try await fixture.count("email_receipts") == 0)
            let invalid = try await client.send(
                .post, "/v1/transactions/\(saleID)/refund", key: fixture.adminA, json: #"{"receiptEmail": "not an address"}"#)
            #expect(invalid.status == .unprocessableContent && invalid.error["param"] as? String == "receiptEmail")
            #expect(try await client.send(.post, "/v1/transactions/\(saleID)/refund", key: fixture.adminA).status == .created)
        }
    }
}
