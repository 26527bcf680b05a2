import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

@Suite struct TransactionRoutesTests {
    static func rawSale(_ number: String = "4242424242424242", amount: Int = 1250, type: String = "sale", extra: String = "") -> String {
        """
        {"type": "\(type)", "amount": \(amount), "currency": "USD", "method": "keyed",
         "card": {"number": "\(number)", "expiryDate": "1230", "holderName": "Ada Lovelace", "cvv": "123"}\(extra)}
        """
    }

    @Test func anApprovedSaleHasTheSeedsStateCodes() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.rawSale())
            #expect(sale.status == .created, "\(sale.text)")
            #expect(sale.json["status"] as? String == "approved")
            #expect(sale.json["state"] as? Int == 400)
            #expect(sale.json["subState"] as? Int == 411)
            #expect(sale.json["maskedNumber"] as? String == "424242******4242")
            #expect((sale.json["gateway"] as? [String: Any])?["name"] as? String == "sandbox")
            #expect(!sale.text.contains("4242424242424242"))
            let id = try #require(sale.json["id"] as? String)
            let fetched = try await client.send(.get, "/v1/transactions/\(id)", key: fixture.adminA)
            #expect(fetched.json["id"] as? String == id)
            #expect(try await client.send(.get, "/v1/transactions/\(id)", key: fixture.adminB).status == .notFound)
        }
    }

    /// A soft decline may pass on a retry: an intermediate 402; a hard one is final, 412.
    @Test(arguments: [("4000000000000002", "card_declined", "hard", 412), ("4000000000009995", "insufficient_funds", "soft", 402),
                      ("4000000000000069", "expired_card", "hard", 412)])
    func declinedSalesAre402WithTheRecordedTransaction(number: String, code: String, category: String, subState: Int) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.rawSale(number))
            #expect(sale.status.code == 402)
            #expect(sale.error["type"] as? String == "card_error")
            #expect(sale.error["code"] as? String == code)
            let transaction = try #require(sale.json["transaction"] as? [String: Any])
            #expect(transaction["status"] as? String == "declined")
            #expect(transaction["state"] as? Int == 400)
            #expect(transaction["subState"] as? Int == subState)
            #expect((transaction["decline"] as? [String: Any])?["category"] as? String == category)
        }
    }

    @Test func authorizeCaptureRefundAndVoidFollowTheirRules() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let auth = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.rawSale(amount: 5000, type: "authorize"))
            #expect(auth.status == .created)
            #expect(auth.json["state"] as? Int == 400)
            #expect(auth.json["subState"] as? Int == 401)
            let authID = try #require(auth.json["id"] as? String)

            let tooMuch = try await client.send(.post, "/v1/transactions/\(authID)/capture", key: fixture.adminA, json: #"{"amount": 5001}"#)
            #expect(tooMuch.status == .unprocessableContent)
            #expect(tooMuch.error["param"] as? String == "amount")

            let capture = try await client.send(.post, "/v1/transactions/\(authID)/capture", key: fixture.adminA, json: #"{"amount": 4000}"#)
            #expect(capture.status == .created, "\(capture.text)")
            #expect(capture.json["type"] as? String == "capture")
            #expect(capture.json["parentId"] as? String == authID)
            let captured = try await client.send(.get, "/v1/transactions/\(authID)", key: fixture.adminA)
            #expect(captured.json["status"] as? String == "captured")
            #expect(captured.json["capturedAmount"] as? Int == 4000)

            let refundTooMuch = try await client.send(.post, "/v1/transactions/\(authID)/refund", key: fixture.adminA, json: #"{"amount": 4001}"#)
            #expect(refundTooMuch.status == .unprocessableContent)
            let partial = try await client.send(.post, "/v1/transactions/\(authID)/refund", key: fixture.adminA, json: #"{"amount": 1000}"#)
            #expect(partial.status == .created, "\(partial.text)")
            let afterPartial = try await client.send(.get, "/v1/transactions/\(authID)", key: fixture.adminA)
            #expect(afterPartial.json["status"] as? String == "partially_refunded")
            #expect(afterPartial.json["refundedAmount"] as? Int == 1000)
            #expect(afterPartial.json["state"] as? Int == 400)
            #expect(afterPartial.json["subState"] as? Int == 404)
            #expect(partial.json["state"] as? Int == 500)
            #expect(partial.json["subState"] as? Int == 504)

            let voidAfterRefund = try await client.send(.post, "/v1/transactions/\(authID)/void", key: fixture.adminA)
            #expect(voidAfterRefund.status == .conflict)

            let rest = try await client.send(.post, "/v1/transactions/\(authID)/refund", key: fixture.adminA)
            #expect(rest.status == .created)
            #expect(rest.json["amount"] as? Int == 3000)
            let done = try await client.send(.get, "/v1/transactions/\(authID)", key: fixture.adminA)
            #expect(done.json["status"] as? String == "refunded")
            #expect(try await client.send(.post, "/v1/transactions/\(authID)/refund", key: fixture.adminA, json: #"{"amount": 1}"#).status != .created)
        }
    }

    @Test func aSaleCanBeVoidedOnceAndThenNotRefunded() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.rawSale())
            let id = try #require(sale.json["id"] as? String)
            let void = try await client.send(.post, "/v1/transactions/\(id)/void", key: fixture.adminA)
            #expect(void.status == .created, "\(void.text)")
            let voided = try await client.send(.get, "/v1/transactions/\(id)", key: fixture.adminA)
            #expect(voided.json["status"] as? String == "voided")
            #expect(voided.json["subState"] as? Int == 502)
            #expect(try await client.send(.post, "/v1/transactions/\(id)/void", key: fixture.adminA).status == .conflict)
            #expect(try await client.send(.post, "/v1/transactions/\(id)/refund", key: fixture.adminA).status == .conflict)
        }
    }

    /// Authorizes 50.00 on a raw card and captures it: the two transaction ids.
    static func authorizeAndCapture(_ client: some TestClientProtocol, key: String) async throws -> (authorization: String, capture: String) {
        let auth = try await client.send(.post, "/v1/transactions", key: key, json: Self.rawSale(amount: 5000, type: "authorize"))
        let authID = try #require(auth.json["id"] as? String)
        let capture = try await client.send(.post, "/v1/transactions/\(authID)/capture", key: key)
        return (authID, try #require(capture.json["id"] as? String, "\(capture.text)"))
    }

    /// Found by the contract test: an authorization and its capture are one transaction at
    /// the gateway, so voiding either voids both. Both are recorded voided; a second void is a 409
    /// that never reaches the gateway (it used to be sent, answered "Already voided", and was a 502).
    @Test func voidingACaptureVoidsItsAuthorizationAndASecondVoidIsAConflict() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let (authID, captureID) = try await Self.authorizeAndCapture(client, key: fixture.adminA)
            #expect(try await client.send(.post, "/v1/transactions/\(captureID)/void", key: fixture.adminA).status == .created)
            let authorization = try await client.send(.get, "/v1/transactions/\(authID)", key: fixture.adminA)
            #expect(authorization.json["status"] as? String == "voided")
            let again = try await client.send(.post, "/v1/transactions/\(authID)/void", key: fixture.adminA)
            #expect(again.status == .conflict, "\(again.text)")
        }
    }

    /// Found by the contract test: refunds of a captured authorization are the
    /// authorization's, and the gateway refuses to void a refunded transaction. The vault checked only
    /// the capture's own refunds (none), sent the void, and answered the gateway's refusal as a 502.
    @Test func voidingACaptureAfterARefundOfItsAuthorizationIsAConflictNotAGatewayError() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let (authID, captureID) = try await Self.authorizeAndCapture(client, key: fixture.adminA)
            let refund = try await client.send(.post, "/v1/transactions/\(authID)/refund", key: fixture.adminA, json: #"{"amount": 1000}"#)
            #expect(refund.status == .created, "\(refund.text)")
            let void = try await client.send(.post, "/v1/transactions/\(captureID)/void", key: fixture.adminA)
            #expect(void.status == .conflict, "\(void.text)")
            #expect((void.json["error"] as? [String: Any])?["code"] as? String == "already_refunded")
            let authorization = try await client.send(.get, "/v1/transactions/\(authID)", key: fixture.adminA)
            #expect(authorization.json["status"] as? String == "partially_refunded")
        }
    }

    @Test func voidingACaptureVoidsItsAuthorizationWhichIsTheVoidsParent() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let (authID, captureID) = try await Self.authorizeAndCapture(client, key: fixture.adminA)
            let void = try await client.send(.post, "/v1/transactions/\(captureID)/void", key: fixture.adminA)
            #expect(void.status == .created, "\(void.text)")
            #expect(void.json["parentId"] as? String == authID)
            let capture = try await client.send(.get, "/v1/transactions/\(captureID)", key: fixture.adminA)
            #expect(capture.json["status"] as? String == "voided")
        }
    }

    @Test func voidingACapturedAuthorizationVoidsItsCapture() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let (authID, captureID) = try await Self.authorizeAndCapture(client, key: fixture.adminA)
            #expect(try await client.send(.post, "/v1/transactions/\(authID)/void", key: fixture.adminA).status == .created)
            let captured = try await client.send(.get, "/v1/transactions/\(captureID)", key: fixture.adminA)
            #expect(captured.json["status"] as? String == "voided")
            #expect(try await client.send(.post, "/v1/transactions/\(captureID)/void", key: fixture.adminA).status == .conflict)
            #expect(try await client.send(.post, "/v1/transactions/\(captureID)/refund", key: fixture.adminA).status == .conflict)
        }
    }

    @Test func registrationBySaleRegistersOnlyWhenApproved() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let registration = #", "secureCard": {"merchantReference": "bysale-1", "customer": {"email": "ada@example.com"}}"#
            let approved = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.rawSale(extra: registration))
            #expect(approved.status == .created)
            let token = try #require(approved.json["secureCardReference"] as? String)
            #expect(token.hasPrefix("sc_"))
            let card = try await client.send(.get, "/v1/secure-cards/bysale-1", key: fixture.adminA)
            #expect(card.json["secureCardReference"] as? String == token)
            #expect(card.json["verification"] is NSNull)

            let declinedRegistration = #", "secureCard": {"merchantReference": "bysale-2"}"#
            let declined = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: Self.rawSale("4000000000000002", extra: declinedRegistration))
            #expect(declined.status.code == 402)
            #expect(try await client.send(.get, "/v1/secure-cards/bysale-2", key: fixture.adminA).status == .notFound)

            let byToken = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: #"{"type": "sale", "amount": 700, "currency": "EUR", "secureCardReference": "\#(token)"}"#)
            #expect(byToken.status == .created)
            #expect(byToken.json["secureCardReference"] as? String == token)
        }
    }

    @Test(arguments: [
        (#"{"type": "refund", "amount": 100, "currency": "USD", "secureCardReference": "sc_x"}"#, "type"),
        (#"{"type": "sale", "amount": 0, "currency": "USD", "secureCardReference": "sc_x"}"#, "amount"),
        (#"{"type": "sale", "amount": 10.5, "currency": "USD", "secureCardReference": "sc_x"}"#, "amount"),
        (#"{"type": "sale", "amount": 100, "currency": "usd", "secureCardReference": "sc_x"}"#, "currency"),
        (#"{"type": "sale", "amount": 100, "currency": "USD", "secureCardReference": "sc_nope"}"#, "secureCardReference"),
        (#"{"type": "sale", "amount": 100, "currency": "USD"}"#, "secureCardReference"),
        (#"{"type": "sale", "amount": 100, "currency": "USD", "method": "ocr", "card": {"number": "4242424242424242", "expiryDate": "1230", "cvv": "1"}}"#, "card.cvv"),
        (#"{"type": "authorize", "amount": 100, "currency": "USD", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "secureCard": {"merchantReference": "x"}}"#, "secureCard"),
        // Null where the document types a field without null (found by make contract).
        (#"{"type": "sale", "amount": 100, "currency": "USD", "secureCardReference": "sc_x", "description": null}"#, "description"),
    ])
    func badTransactionsAre422AndChargeNothing(body: String, param: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: body)
            #expect(response.status == .unprocessableContent, "\(response.text)")
            #expect(response.error["param"] as? String == param)
        }
        #expect(try await fixture.count("transactions") == 0)
    }

    @Test func listsFilterByStatusNewestFirst() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.rawSale())
            _ = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.rawSale("4000000000000002"))
            _ = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.rawSale(amount: 99))
            let all = try await client.send(.get, "/v1/transactions", key: fixture.adminA)
            #expect((all.json["data"] as? [[String: Any]])?.map { $0["amount"] as? Int } == [99, 1250, 1250])
            let declined = try await client.send(.get, "/v1/transactions?status=declined", key: fixture.adminA)
            #expect((declined.json["data"] as? [Any])?.count == 1)
            let page = try await client.send(.get, "/v1/transactions?limit=2", key: fixture.adminA)
            let cursor = try #require(page.json["nextCursor"] as? String)
            let next = try await client.send(.get, "/v1/transactions?limit=2&cursor=\(cursor)", key: fixture.adminA)
            #expect((next.json["data"] as? [Any])?.count == 1)
            #expect(try await client.send(.get, "/v1/transactions?status=nope", key: fixture.adminA).status == .unprocessableContent)
            #expect((try await client.send(.get, "/v1/transactions", key: fixture.adminB).json["data"] as? [Any])?.isEmpty == true)
        }
    }
}
