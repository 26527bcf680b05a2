import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// `POST /v1/transactions/{id}/void` reads its body like `/refund` and `/capture`: malformed JSON,
/// duplicate keys and unknown fields are 400s, bad amounts 422s, and none of them changes the sale;
/// an empty body voids everything that remains. Every transaction answers with its reverse mode.
@Suite struct VoidBodyTests {
    @Test func aVoidBodyIsCheckedAndBadOnesChangeNothing() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 3333))
            let id = try #require(sale.json["id"] as? String)
            let before = try await fixture.count("transactions")
            let bad: [(String, HTTPResponse.Status, String)] = [
                (#"{"amount": 1000"#, .badRequest, "malformed"),
                (#"{"amount": 1000, "amount": 3333}"#, .badRequest, "duplicate key"),
                (#"{"amount": 1000, "reason": "x"}"#, .badRequest, "unknown field"),
                (#"{"amount": "1000"}"#, .badRequest, "wrong type"),
                (#"{"amount": 10.5}"#, .unprocessableContent, "fraction"),
                (#"{"amount": 0}"#, .unprocessableContent, "zero"),
                (#"{"amount": 3334}"#, .unprocessableContent, "more than the sale"),
            ]
            for (body, status, why) in bad {
                let answer = try await client.send(.post, "/v1/transactions/\(id)/void", key: fixture.adminA, json: body)
                #expect(answer.status == status || (why == "wrong type" && answer.status == .unprocessableContent), "\(why): \(answer.text)")
            }
            #expect(try await fixture.count("transactions") == before)
            let untouched = try await client.send(.get, "/v1/transactions/\(id)", key: fixture.adminA)
            #expect(untouched.json["status"] as? String == "approved")
            #expect(untouched.json["voidedAmount"] as? Int == 0)

            // Part of the sale: a partial reversal where the gateway takes one, else a 422 naming the
            // refund; never a void of the whole 33.33.
            let part = try await client.send(.post, "/v1/transactions/\(id)/void", key: fixture.adminA, json: #"{"amount": 1000}"#)
            let after = try await client.send(.get, "/v1/transactions/\(id)", key: fixture.adminA)
            if part.status == .created {
                #expect(part.json["amount"] as? Int == 1000)
                #expect(after.json["status"] as? String == "approved")
                #expect(after.json["voidedAmount"] as? Int == 1000)
                #expect(after.json["refundableAmount"] as? Int == 2333)
            } else {
                #expect(part.status == .unprocessableContent, "\(part.text)")
                #expect(part.error["code"] as? String == "partial_void_not_supported")
                #expect((part.error["message"] as? String ?? "").contains("/v1/transactions/\(id)/refund"))
                #expect(after.json["status"] as? String == "approved")
                #expect(after.json["voidedAmount"] as? Int == 0)
                #expect(after.json["reverseMode"] as? String == "cancel")
            }

            // An empty body voids everything that remains.
            let remaining = 3333 - (after.json["voidedAmount"] as? Int ?? 0)
            let whole = try await client.send(.post, "/v1/transactions/\(id)/void", key: fixture.adminA)
            #expect(whole.status == .created, "\(whole.text)")
            #expect(whole.json["amount"] as? Int == remaining)
            let voided = try await client.send(.get, "/v1/transactions/\(id)", key: fixture.adminA)
            #expect(voided.json["status"] as? String == "voided")
            #expect(voided.json["voidedAmount"] as? Int == 3333)
            #expect(voided.json["reverseMode"] as? String == "none")
            #expect(voided.json["refundableAmount"] as? Int == 0)
        }
    }

    @Test func aTransactionShowsItsReverseModeRefundableAmountAndWindow() async throws {
        let fixture = try await APIFixture { $0.reversalWindowHours = 2 }
        try await fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 5000))
            let id = try #require(sale.json["id"] as? String)
            #expect(["cancel", "cancel_partial"].contains(sale.json["reverseMode"] as? String ?? ""), "\(sale.text)")
            #expect(sale.json["refundableAmount"] as? Int == 5000)
            let created = try #require((sale.json["createdAt"] as? String).flatMap(Timestamp.parse))
            let until = try #require((sale.json["voidableUntil"] as? String).flatMap(Timestamp.parse))
            #expect(abs(until.timeIntervalSince(created) - 2 * 3600) < 1)

            let refund = try await client.send(.post, "/v1/transactions/\(id)/refund", key: fixture.adminA, json: #"{"amount": 1500}"#)
            #expect(refund.json["reverseMode"] as? String == "none")
            #expect(refund.json["voidableUntil"] is NSNull)
            let refunded = try await client.send(.get, "/v1/transactions/\(id)", key: fixture.adminA)
            #expect(refunded.json["reverseMode"] as? String == "return_partial")
            #expect(refunded.json["refundableAmount"] as? Int == 3500)
            #expect(refunded.json["voidableUntil"] is NSNull)

            let declined = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale("4000000000000002", amount: 700))
            #expect(declined.status.code == 402)
            let list = try await client.send(.get, "/v1/transactions?limit=10", key: fixture.adminA)
            let rows = try #require(list.json["data"] as? [[String: Any]])
            #expect(rows.count == 3)
            for row in rows where row["status"] as? String == "declined" {
                #expect(row["reverseMode"] as? String == "none")
                #expect(row["refundableAmount"] as? Int == 0)
            }
        }
    }
}
