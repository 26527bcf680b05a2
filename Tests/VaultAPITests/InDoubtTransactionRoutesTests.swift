import Foundation
@testable import GatewayFakes
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Payments
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// One-off transactions whose gateway answer was lost, over HTTP against NMI's fake: a retry with
/// the same `Idempotency-Key` never charges twice and answers what the reconciler settled; what the
/// gateway cannot prove goes to review and an operator resolves it.
@Suite struct InDoubtTransactionRoutesTests {
    struct Setup {
        let fixture: APIFixture
        let fake: FakeNMIServer
        let admin: String
        let readonly: String

        /// Runs the reconciler as `vault serve` does, once the grace period has passed.
        func reconcile() async throws -> ReconciliationSummary {
            var quiet = Logger(label: "test.reconciler")
            quiet.logLevel = .critical
            let grace = TimeInterval(fixture.runtime.configuration.runner.inDoubtGraceSeconds)
            return try await fixture.runtime.reconciler(logger: quiet).reconcile(now: Date().addingTimeInterval(grace + 1))
        }
    }

    static func setUp() async throws -> Setup {
        let fake = try await FakeNMIServer.start()
        let fixture = try await APIFixture()
        let (_, key) = try await fixture.runtime.merchants.create(
            name: "merchant-nmi", role: .admin,
            settings: .init(gateway: "nmi", gatewayURL: fake.baseURL, gatewayCredentials: ["security_key": FakeNMIServer.securityKey]),
            actor: "test")
        let readonly = try await fixture.runtime.merchants.issueKey(merchantName: "merchant-nmi", role: .readonly, actor: "test").bearer
        return Setup(fixture: fixture, fake: fake, admin: key.bearer, readonly: readonly)
    }

    static func idempotencyKey(_ key: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.idempotencyKey] = key
        return headers
    }

    @Test func aRetryWithTheSameKeyAfterALostAnswerNeverChargesTwiceAndAnswersTheSettledSale() async throws {
        let setup = try await Self.setUp()
        defer { Task { await setup.fake.stop() } }
        setup.fake.core.enqueue(.garbageAfterProcessing)
        let body = TransactionRoutesTests.rawSale("4111111111111111", amount: 4321)
        try await setup.fixture.live { client in
            let headers = Self.idempotencyKey("order-77")
            let first = try await client.send(.post, "/v1/transactions", key: setup.admin, json: body, headers: headers)
            #expect(first.status == .badGateway)
            #expect(first.error["code"] as? String == "gateway_in_doubt")
            #expect((first.error["message"] as? String)?.contains("Nothing is sent again") == true)
            let id = try #require((first.json["transaction"] as? [String: Any])?["id"] as? String)

            let retry = try await client.send(.post, "/v1/transactions", key: setup.admin, json: body, headers: headers)
            #expect(retry.status == .badGateway)
            #expect(retry.headers[.idempotentReplayed] == "true")
            #expect((retry.json["transaction"] as? [String: Any])?["id"] as? String == id)
            #expect(setup.fake.receivedTypes == ["sale"], "a retry while in doubt sends nothing")

            #expect(try await setup.reconcile().settled == 1)
            let settled = try await client.send(.post, "/v1/transactions", key: setup.admin, json: body, headers: headers)
            #expect(settled.status == .created, "\(settled.text)")
            #expect(settled.json["id"] as? String == id)
            #expect(settled.json["status"] as? String == "approved")
            #expect(settled.headers[.idempotentReplayed] == "true")
            #expect(setup.fake.receivedTypes == ["sale"], "never charged twice")
            #expect(setup.fake.chargeCount == 1)

            let otherBody = try await client.send(
                .post, "/v1/transactions", key: setup.admin, json: TransactionRoutesTests.rawSale("4111111111111111", amount: 1), headers: headers)
            #expect(otherBody.status == .conflict)
        }
    }

    @Test func aTransactionInReviewIsListedAndResolvedByAnOperatorOnly() async throws {
        let setup = try await Self.setUp()
        defer { Task { await setup.fake.stop() } }
        setup.fake.core.enqueue(.garbageAfterProcessing)
        setup.fake.core.enqueue(.status(503), for: .lookup)
        try await setup.fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: setup.admin, json: TransactionRoutesTests.rawSale("4111111111111111"))
            #expect(sale.status == .badGateway)
            let id = try #require((sale.json["transaction"] as? [String: Any])?["id"] as? String)
            #expect(try await setup.reconcile().needsReview == 1)

            let listed = try await client.send(.get, "/v1/transactions?status=needs_review", key: setup.admin)
            let rows = try #require(listed.json["data"] as? [[String: Any]])
            #expect(rows.map { $0["id"] as? String } == [id])

            let path = "/v1/transactions/\(id)/resolve"
            let malformed = try await client.send(.post, path, key: setup.admin, json: #"{"outcome": "charged""#)
            #expect(malformed.status == .badRequest)
            let missingID = try await client.send(.post, path, key: setup.admin, json: #"{"outcome": "charged"}"#)
            #expect(missingID.status == .unprocessableContent)
            #expect(missingID.error["param"] as? String == "gatewayTransactionId")
            let unknownField = try await client.send(.post, path, key: setup.admin, json: #"{"outcome": "not_charged", "note": "x"}"#)
            #expect(unknownField.status == .badRequest)
            let readonly = try await client.send(.post, path, key: setup.readonly, json: #"{"outcome": "not_charged"}"#)
            #expect(readonly.status == .forbidden)
            let stillInReview = try await client.send(.get, "/v1/transactions/\(id)", key: setup.admin)
            #expect(stillInReview.json["status"] as? String == "needs_review", "refused requests change nothing")

            let charged = try #require(setup.fake.transactions(orderID: Transaction.orderReference(for: id)).first)
            let resolved = try await client.send(
                .post, path, key: setup.admin, json: #"{"outcome": "charged", "gatewayTransactionId": "\#(charged.transactionID)"}"#)
            #expect(resolved.status == .ok, "\(resolved.text)")
            #expect(resolved.json["status"] as? String == "approved")
            let again = try await client.send(.post, path, key: setup.admin, json: #"{"outcome": "not_charged"}"#)
            #expect(again.status == .conflict)
            #expect(again.error["code"] as? String == "transaction_not_in_review")
            #expect(setup.fake.receivedTypes == ["sale"])
        }
    }

    @Test func anApprovedTransactionCannotBeResolved() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale())
            let id = try #require(sale.json["id"] as? String)
            let refused = try await client.send(.post, "/v1/transactions/\(id)/resolve", key: fixture.adminA, json: #"{"outcome": "not_charged"}"#)
            #expect(refused.status == .conflict)
            #expect(try await client.send(.get, "/v1/transactions/\(id)", key: fixture.adminA).json["status"] as? String == "approved")
            let unknown = try await client.send(.post, "/v1/transactions/txn_nope/resolve", key: fixture.adminA, json: #"{"outcome": "not_charged"}"#)
            #expect(unknown.status == .notFound)
        }
    }

    /// On the default set-up (the sandbox), the test cards for lost answers show every end a
    /// merchant can meet: found approved, proven not charged, and review then resolution.
    @Test func theSandboxsLostAnswerCardsShowSettlementAndReviewOnTheDefaultSetUp() async throws {
        let fixture = try await APIFixture()
        let quiet = NMIMerchantVault.quiet
        try await fixture.live { client in
            var ids: [String: String] = [:]
            for card in [SandboxTestCard.answerLostAfterCharging, .answerLostBeforeCharging, .answerLostRecordsUnsearchable] {
                let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(card.number))
                #expect(sale.status == .badGateway)
                #expect(sale.error["code"] as? String == "gateway_in_doubt")
                ids[card.number] = try #require((sale.json["transaction"] as? [String: Any])?["id"] as? String)
            }
            let grace = TimeInterval(fixture.runtime.configuration.runner.inDoubtGraceSeconds)
            let summary = try await fixture.runtime.reconciler(logger: quiet).reconcile(now: Date().addingTimeInterval(grace + 1))
            #expect(summary.settled == 1 && summary.notCharged == 1 && summary.needsReview == 1)
            func status(_ card: SandboxTestCard) async throws -> String? {
                try await client.send(.get, "/v1/transactions/\(ids[card.number]!)", key: fixture.adminA).json["status"] as? String
            }
            #expect(try await status(.answerLostAfterCharging) == "approved")
            #expect(try await status(.answerLostBeforeCharging) == "error")
            #expect(try await status(.answerLostRecordsUnsearchable) == "needs_review")
            let resolved = try await client.send(
                .post, "/v1/transactions/\(ids[SandboxTestCard.answerLostRecordsUnsearchable.number]!)/resolve", key: fixture.adminA,
                json: #"{"outcome": "not_charged"}"#)
            #expect(resolved.status == .ok)
            #expect(resolved.json["status"] as? String == "error")
        }
    }
}
