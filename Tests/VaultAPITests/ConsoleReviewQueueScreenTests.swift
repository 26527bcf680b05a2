import Foundation
@testable import GatewayFakes
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport

/// The console's Needs-review screen: a one-off sale whose answer was lost is listed with the order
/// reference the gateway holds; a read-only operator sees it without a resolve form and is refused
/// a forged resolution; a support operator's bad input (no gateway id with "charged", a card number
/// as the id) is refused in the API's words, changing nothing; a resolution goes through the
/// queue's service behind a confirmation, audited under the operator.
@Suite struct ConsoleReviewQueueScreenTests {
    typealias Console = ConsoleRoutesTests

    @Test func aSupportOperatorResolvesAnItemInReviewAfterAConfirmationAndAReadOnlyOneCannot() async throws {
        let setup = try await InDoubtTransactionRoutesTests.setUp()
        defer { Task { await setup.fake.stop() } }
        let supportSecret = try await Console.enrol(setup.fixture, "ada", role: .support)
        let viewerSecret = try await Console.enrol(setup.fixture, "viewer", role: .readonly)
        try await setup.fixture.live { client in
            let id = try await ReviewQueueRoutesTests.transactionInReview(setup, client: client)
            let listed = try #require((try await client.send(.get, "/v1/review-queue", key: setup.admin).json["data"] as? [[String: Any]])?.first)
            let orderReference = try #require(listed["gatewayOrderReference"] as? String)
            let merchantID = try #require(try await setup.fixture.runtime.store.merchants().first { $0.name == "merchant-nmi" }?.id)

            let viewer = try await Console.signIn(client, "viewer", secret: viewerSecret)
            let seen = try await Console.get(client, "/console/review-queue", cookie: viewer)
            #expect(seen.status == .ok && seen.text.contains(id) && seen.text.contains(orderReference))
            #expect(seen.text.contains("aria-current=\"page\">Needs review<") && !seen.text.contains("/console/review-queue/resolve"))
            #expect(!seen.text.contains("4111111111111111"))
            let item = [("merchant", merchantID), ("kind", "transaction"), ("id", id)]
            let forged = try await Console.post(
                client, "/console/review-queue/resolve", [("csrf", try Console.csrf(in: seen.text))] + item + [("outcome", "not_charged"), ("confirm", "yes")],
                cookie: viewer)
            #expect(forged.status == .forbidden)
            #expect(try await ReviewQueueRoutesTests.status(setup, id, client: client) == "needs_review")

            let support = try await Console.signIn(client, "ada", secret: supportSecret)
            let page = try await Console.get(client, "/console/review-queue", cookie: support)
            #expect(page.text.contains("action=\"/console/review-queue/resolve\""))
            let csrf = try Console.csrf(in: page.text)
            let noID = try await Console.post(client, "/console/review-queue/resolve", [("csrf", csrf)] + item + [("outcome", "charged"), ("confirm", "yes")], cookie: support)
            #expect(noID.status == .unprocessableContent && noID.text.contains("Give the gateway&#39;s transaction id"))
            let cardAsID = try await Console.post(
                client, "/console/review-queue/resolve", [("csrf", csrf)] + item + [("outcome", "charged"), ("gatewayTransactionId", "4111111111111111"), ("confirm", "yes")],
                cookie: support)
            #expect(cardAsID.status == .unprocessableContent && !cardAsID.text.contains("4111111111111111"))
            let sometimes = try await Console.post(client, "/console/review-queue/resolve", [("csrf", csrf)] + item + [("outcome", "sometimes")], cookie: support)
            #expect(sometimes.status == .unprocessableContent)
            #expect(try await ReviewQueueRoutesTests.status(setup, id, client: client) == "needs_review", "bad input changes nothing")

            let asked = try await Console.post(client, "/console/review-queue/resolve", [("csrf", csrf)] + item + [("outcome", "not_charged")], cookie: support)
            #expect(asked.status == .ok && asked.text.contains("<strong>not charged</strong>") && asked.text.contains(orderReference))
            #expect(try await ReviewQueueRoutesTests.status(setup, id, client: client) == "needs_review", "nothing before the confirmation")
            let resolved = try await Console.post(
                client, "/console/review-queue/resolve", [("csrf", csrf)] + item + [("outcome", "not_charged"), ("confirm", "yes")], cookie: support)
            #expect(resolved.status == .seeOther && resolved.headers[.location] == "/console/review-queue?resolved=\(id)")
            #expect(try await ReviewQueueRoutesTests.status(setup, id, client: client) != "needs_review")
            let after = try await Console.get(client, "/console/review-queue", cookie: support)
            #expect(after.text.contains("Nothing waits for review."))
            let again = try await Console.post(
                client, "/console/review-queue/resolve", [("csrf", csrf)] + item + [("outcome", "not_charged"), ("confirm", "yes")], cookie: support)
            #expect(again.status == .conflict)
        }
        #expect(try await setup.fixture.count("audit_events WHERE action = 'transaction.resolved' AND actor = 'operator:ada'") == 1)
        #expect(try await setup.fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:viewer'") == 1)
    }
}
