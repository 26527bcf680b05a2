import Foundation
@testable import GatewayFakes
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Payments
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport

/// "Look up at the gateway" on the Needs-review screen: one item or every item shown, asked again
/// through `ReviewQueueService.lookup` (what `POST /v1/review-queue/lookup` calls), the answer shown
/// on the item (found approved with the gateway's id filled into the resolution, unavailable) and
/// nothing recorded but the operator's `console.review_looked_up` event; a read-only operator is
/// shown no button and refused a forged post; a malformed item is a 422.
@Suite struct ConsoleReviewLookupTests {
    typealias Console = ConsoleRoutesTests

    @Test func aSupportOperatorLooksAnItemUpAtTheGatewayAndSeesTheAnswerAndAReadOnlyOneCannot() async throws {
        let setup = try await InDoubtTransactionRoutesTests.setUp()
        defer { Task { await setup.fake.stop() } }
        let supportSecret = try await Console.enrol(setup.fixture, "ada", role: .support)
        let viewerSecret = try await Console.enrol(setup.fixture, "viewer", role: .readonly)
        try await setup.fixture.live { client in
            let id = try await ReviewQueueRoutesTests.transactionInReview(setup, client: client)
            let charged = try #require(setup.fake.transactions(orderID: Transaction.orderReference(for: id)).first)
            let merchantID = try #require(try await setup.fixture.runtime.store.merchants().first { $0.name == "merchant-nmi" }?.id)
            let item = [("merchant", merchantID), ("kind", "transaction"), ("id", id)]

            let viewer = try await Console.signIn(client, "viewer", secret: viewerSecret)
            let seen = try await Console.get(client, "/console/review-queue", cookie: viewer)
            #expect(seen.status == .ok && !seen.text.contains("/console/review-queue/lookup"))
            let forged = try await Console.post(client, "/console/review-queue/lookup", [("csrf", try Console.csrf(in: seen.text))] + item, cookie: viewer)
            #expect(forged.status == .forbidden)

            let support = try await Console.signIn(client, "ada", secret: supportSecret)
            let page = try await Console.get(client, "/console/review-queue", cookie: support)
            #expect(page.text.contains("aria-label=\"Look up at the gateway: \(id)\"") && page.text.contains("Look up all shown at the gateway (1)"))
            let csrf = try Console.csrf(in: page.text)
            let malformed = try await Console.post(
                client, "/console/review-queue/lookup", [("csrf", csrf), ("merchant", merchantID), ("kind", "refund"), ("id", id)], cookie: support)
            #expect(malformed.status == .unprocessableContent)

            setup.fake.core.enqueue(.status(503), for: .lookup)
            let unavailable = try await Console.post(client, "/console/review-queue/lookup", [("csrf", csrf)] + item, cookie: support)
            #expect(unavailable.status == .ok && unavailable.text.contains("<strong>Unavailable</strong>"))
            let found = try await Console.post(client, "/console/review-queue/lookup", [("csrf", csrf)] + item, cookie: support)
            #expect(found.status == .ok && found.text.contains("<strong>Found approved</strong> at the gateway as transaction"))
            #expect(found.text.contains("name=\"gatewayTransactionId\" value=\"\(charged.transactionID)\""), "the resolution carries the id found")
            let all = try await Console.post(client, "/console/review-queue/lookup", [("csrf", csrf), ("all", "yes")], cookie: support)
            #expect(all.status == .ok && all.text.contains("<span class=\"mono\">\(id)</span>: <strong>Found approved</strong>"))
            #expect(try await ReviewQueueRoutesTests.status(setup, id, client: client) == "needs_review", "a look-up records nothing")
        }
        #expect(try await setup.fixture.count("audit_events WHERE action = 'console.review_looked_up' AND actor = 'operator:ada'") == 3)
        #expect(try await setup.fixture.count("audit_events WHERE action = 'console.review_looked_up' AND details LIKE '%found_approved%'") == 2)
        #expect(try await setup.fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:viewer'") == 1)
        #expect(setup.fake.receivedTypes == ["sale"], "nothing was sent again")
    }
}
