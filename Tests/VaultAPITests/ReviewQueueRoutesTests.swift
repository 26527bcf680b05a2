import Foundation
@testable import GatewayFakes
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Payments
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// `GET /v1/review-queue`, `POST /v1/review-queue/resolve` and `POST /v1/review-queue/lookup` over
/// HTTP against NMI's fake: a one-off transaction left in review is listed with the order reference
/// the gateway holds, looked up again, resolved in bulk; bad input is a clear 4xx that changes nothing.
@Suite struct ReviewQueueRoutesTests {
    typealias InDoubt = InDoubtTransactionRoutesTests

    /// A sale of the NMI merchant whose answer was lost and whose look-ups failed: in review.
    static func transactionInReview(_ setup: InDoubt.Setup, client: some TestClientProtocol) async throws -> String {
        setup.fake.core.enqueue(.garbageAfterProcessing)
        setup.fake.core.enqueue(.status(503), for: .lookup)
        let sale = try await client.send(.post, "/v1/transactions", key: setup.admin, json: TransactionRoutesTests.rawSale("4111111111111111"))
        #expect(sale.status == .badGateway)
        let id = try #require((sale.json["transaction"] as? [String: Any])?["id"] as? String)
        #expect(try await setup.reconcile().needsReview == 1)
        return id
    }

    static func status(_ setup: InDoubt.Setup, _ id: String, client: some TestClientProtocol) async throws -> String? {
        try await client.send(.get, "/v1/transactions/\(id)", key: setup.admin).json["status"] as? String
    }

    @Test func theQueueListsATransactionInReviewWithTheGatewaysOrderReferenceAndRefusesBadQueries() async throws {
        let setup = try await InDoubt.setUp()
        defer { Task { await setup.fake.stop() } }
        try await setup.fixture.live { client in
            let id = try await Self.transactionInReview(setup, client: client)
            let listed = try await client.send(.get, "/v1/review-queue", key: setup.admin)
            #expect(listed.status == .ok)
            let rows = try #require(listed.json["data"] as? [[String: Any]])
            let row = try #require(rows.first)
            #expect(rows.count == 1)
            #expect(row["kind"] as? String == "transaction" && row["id"] as? String == id && row["transactionId"] as? String == id)
            #expect(row["gatewayOrderReference"] as? String == Transaction.orderReference(for: id))
            #expect(setup.fake.transactions(orderID: row["gatewayOrderReference"] as? String ?? "").count == 1, "what the gateway holds")
            #expect((row["reason"] as? String)?.hasPrefix("lookup_unavailable") == true)
            #expect(row["since"] is String && row["scheduleId"] is NSNull)
            #expect(!listed.text.contains("4111111111111111"))
            #expect(try await client.send(.get, "/v1/review-queue", key: setup.readonly).status == .ok)

            let paged = try await client.send(.get, "/v1/review-queue?limit=1", key: setup.admin)
            #expect(paged.json["nextCursor"] is NSNull)
            let badCursor = try await client.send(.get, "/v1/review-queue?cursor=abc", key: setup.admin)
            #expect(badCursor.status == .unprocessableContent && badCursor.error["code"] as? String == "invalid_cursor")
            let badLimit = try await client.send(.get, "/v1/review-queue?limit=0", key: setup.admin)
            #expect(badLimit.status == .unprocessableContent && badLimit.error["param"] as? String == "limit")
            let unknown = try await client.send(.get, "/v1/review-queue?status=needs_review", key: setup.admin)
            #expect(unknown.status == .badRequest && unknown.error["code"] as? String == "unknown_parameter")
        }
    }

    @Test func aCursorOfTheQueueOpensOnlyTheNextPage() async throws {
        let setup = try await InDoubt.setUp()
        defer { Task { await setup.fake.stop() } }
        try await setup.fixture.live { client in
            let first = try await Self.transactionInReview(setup, client: client)
            let second = try await Self.transactionInReview(setup, client: client)
            let page = try await client.send(.get, "/v1/review-queue?limit=1", key: setup.admin)
            #expect((page.json["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [first])
            let cursor = try #require(page.json["nextCursor"] as? String)
            let next = try await client.send(.get, "/v1/review-queue?limit=1&cursor=\(cursor)", key: setup.admin)
            #expect((next.json["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [second])
            #expect(next.json["nextCursor"] is NSNull)
        }
    }

    @Test func aBulkResolutionWithABrokenItemRefusesTheWholeRequestAndChangesNothing() async throws {
        let setup = try await InDoubt.setUp()
        defer { Task { await setup.fake.stop() } }
        try await setup.fixture.live { client in
            let id = try await Self.transactionInReview(setup, client: client)
            let good = #"{"kind": "transaction", "id": "\#(id)", "outcome": "not_charged"}"#
            let refused: [(body: String, status: HTTPResponse.Status, param: String?)] = [
                (#"{"items": [\#(good), {"kind": "transaction", "id": "txn_b", "outcome": "charged"}]}"#, .unprocessableContent,
                 "items[1].gatewayTransactionId"),
                (#"{"items": [\#(good), {"kind": "refund", "id": "txn_b", "outcome": "not_charged"}]}"#, .unprocessableContent, "items[1].kind"),
                (#"{"items": [\#(good), \#(good)]}"#, .unprocessableContent, "items[1].id"),
                (#"{"items": []}"#, .unprocessableContent, "items"),
                (#"{}"#, .unprocessableContent, "items"),
                (#"{"items": [{"kind": "transaction", "id": "4111111111111111", "outcome": "not_charged"}]}"#, .unprocessableContent, "items[0].id"),
                (#"{"items": [\#(good), {"kind": "transaction", "id": "txn_b", "outcome": "not_charged", "note": "x"}]}"#, .badRequest, nil),
            ]
            for (body, status, param) in refused {
                let response = try await client.send(.post, "/v1/review-queue/resolve", key: setup.admin, json: body)
                #expect(response.status == status, "\(body)")
                if let param { #expect(response.error["param"] as? String == param, "\(body)") }
                #expect(!response.text.contains("4111111111111111"))
            }
            let tooMany = "{\"items\": [" + (0...100).map { #"{"kind": "transaction", "id": "txn_\#($0)", "outcome": "not_charged"}"# }
                .joined(separator: ",") + "]}"
            #expect(try await client.send(.post, "/v1/review-queue/resolve", key: setup.admin, json: tooMany).status == .unprocessableContent)
            let readonly = try await client.send(.post, "/v1/review-queue/resolve", key: setup.readonly, json: #"{"items": [\#(good)]}"#)
            #expect(readonly.status == .forbidden)
            #expect(try await Self.status(setup, id, client: client) == "needs_review", "refused requests change nothing")
            #expect(try await setup.fixture.count("audit_events WHERE action = 'transaction.resolved'") == 0)
        }
    }

    @Test func aLookUpReportsTheGatewaysRecordAndABulkResolutionSaysWhichItemsWereApplied() async throws {
        let setup = try await InDoubt.setUp()
        defer { Task { await setup.fake.stop() } }
        try await setup.fixture.live { client in
            let id = try await Self.transactionInReview(setup, client: client)
            let badLookup = try await client.send(
                .post, "/v1/review-queue/lookup", key: setup.admin, json: #"{"items": [{"kind": "transaction", "id": "\#(id)", "outcome": "charged"}]}"#)
            #expect(badLookup.status == .badRequest, "a look-up takes no outcome")
            let lookup = try await client.send(
                .post, "/v1/review-queue/lookup", key: setup.admin,
                json: #"{"items": [{"kind": "transaction", "id": "\#(id)"}, {"kind": "step", "id": "stp_missing"}]}"#)
            #expect(lookup.status == .ok, "\(lookup.text)")
            let found = try #require(lookup.json["data"] as? [[String: Any]])
            let charged = try #require(setup.fake.transactions(orderID: Transaction.orderReference(for: id)).first)
            #expect(found.first?["result"] as? String == "found")
            #expect(found.first?["gatewayOutcome"] as? String == "approved")
            #expect(found.first?["gatewayTransactionId"] as? String == charged.transactionID)
            #expect(found.last?["result"] as? String == "refused")
            #expect((found.last?["error"] as? [String: Any])?["code"] as? String == "not_found")
            #expect(try await Self.status(setup, id, client: client) == "needs_review", "a look-up records nothing")

            let resolved = try await client.send(
                .post, "/v1/review-queue/resolve", key: setup.admin,
                json: #"""
                {"items": [{"kind": "transaction", "id": "txn_missing", "outcome": "not_charged"},
                           {"kind": "transaction", "id": "\#(id)", "outcome": "charged", "gatewayTransactionId": "\#(charged.transactionID)"}]}
                """#)
            #expect(resolved.status == .ok, "\(resolved.text)")
            let results = try #require(resolved.json["data"] as? [[String: Any]])
            #expect(results.map { $0["applied"] as? Bool } == [false, true])
            #expect((results[0]["error"] as? [String: Any])?["code"] as? String == "not_found")
            #expect(results[1]["status"] as? String == "approved")
            #expect(try await Self.status(setup, id, client: client) == "approved")
            let again = try await client.send(
                .post, "/v1/review-queue/resolve", key: setup.admin,
                json: #"{"items": [{"kind": "transaction", "id": "\#(id)", "outcome": "not_charged"}]}"#)
            #expect(((again.json["data"] as? [[String: Any]])?.first?["error"] as? [String: Any])?["code"] as? String == "transaction_not_in_review")
            #expect(try await Self.status(setup, id, client: client) == "approved")
            #expect((try await client.send(.get, "/v1/review-queue", key: setup.admin).json["data"] as? [Any])?.isEmpty == true)
            #expect(setup.fake.receivedTypes == ["sale"], "nothing was sent again")
        }
    }
}
