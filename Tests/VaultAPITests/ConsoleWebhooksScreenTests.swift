import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport

/// The console's Webhooks screen: deliveries with status, attempts, last error and next attempt in
/// the merchant's zone, filtered by status; "Resend" for support and admin only, through the API's
/// resend service and audited under the operator; a read-only operator shown no form and refused a
/// forged post that changes nothing; bad input a clear 4xx.
@Suite struct ConsoleWebhooksScreenTests {
    typealias Console = ConsoleRoutesTests

    @Test func deliveriesAreListedByStatusAndASupportOperatorResendsOneThatAReadOnlyOneCannot() async throws {
        let fixture = try await APIFixture()
        let supportSecret = try await Console.enrol(fixture, "sam", role: .support)
        let viewerSecret = try await Console.enrol(fixture, "viewer", role: .readonly)
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("hook-1", verify: false)).status == .created)
            let store = fixture.runtime.store
            let event = try #require(try await store.webhookEvents(merchantID: fixture.merchantA.id, status: .pending, beforeSequence: nil, limit: 10).first)
            let now = Date()
            _ = try await store.claimWebhookEvents(now: now.addingTimeInterval(1), leaseUntil: now.addingTimeInterval(60), limit: 100)
            try await store.markWebhookDelivered(id: event.id, at: now)
            let resendPath = "/console/webhooks/\(fixture.merchantA.id)/\(event.id)/resend"

            let viewer = try await Console.signIn(client, "viewer", secret: viewerSecret)
            let listed = try await Console.get(client, "/console/webhooks", cookie: viewer)
            #expect(listed.status == .ok)
            #expect(listed.text.contains(event.id) && listed.text.contains("secure_card.registered") && listed.text.contains(">delivered<"))
            #expect(listed.text.contains(">Status</label>") && listed.text.contains("aria-current=\"page\">Webhooks<"))
            #expect(!listed.text.contains("not built yet"))
            #expect(!listed.text.contains(resendPath), "no resend form for a read-only operator")
            #expect(!listed.text.contains("<script") && !listed.text.contains("style="))
            let forged = try await Console.post(client, resendPath, [("csrf", try Console.csrf(in: listed.text))], cookie: viewer)
            #expect(forged.status == .forbidden)
            #expect(try await store.webhookEvent(id: event.id)?.status == .delivered, "a refused post changes nothing")

            let pendingOnly = try await Console.get(client, "/console/webhooks?status=pending", cookie: viewer)
            #expect(pendingOnly.status == .ok && !pendingOnly.text.contains(event.id))
            #expect(pendingOnly.text.contains("<option value=\"pending\" selected>"))
            let badFilter = try await Console.get(client, "/console/webhooks?status=sent", cookie: viewer)
            #expect(badFilter.status == .badRequest)
            #expect(badFilter.text.contains("pending, delivered or expired") && !badFilter.text.contains(event.id))

            let sam = try await Console.signIn(client, "sam", secret: supportSecret)
            let page = try await Console.get(client, "/console/webhooks?status=delivered", cookie: sam)
            #expect(page.text.contains(resendPath))
            let csrf = try Console.csrf(in: page.text)
            let missing = try await Console.post(client, "/console/webhooks/\(fixture.merchantA.id)/evt_missing/resend", [("csrf", csrf)], cookie: sam)
            #expect(missing.status == .notFound)
            let otherMerchant = try await Console.post(client, "/console/webhooks/\(fixture.merchantB.id)/\(event.id)/resend", [("csrf", csrf)], cookie: sam)
            #expect(otherMerchant.status == .notFound, "an event is resent only under its own merchant")
            #expect(try await fixture.count("audit_events WHERE action = 'webhook_event.resent'") == 0)

            let resent = try await Console.post(client, resendPath, [("csrf", csrf)], cookie: sam)
            #expect(resent.status == .seeOther)
            #expect(try await store.webhookEvent(id: event.id)?.status == .pending)
            let pending = try await Console.get(client, "/console/webhooks?status=pending", cookie: sam)
            #expect(pending.text.contains(event.id) && pending.text.contains(">pending<"))
            #expect(pending.text.contains(" UTC<"), "the next attempt is shown in the merchant's zone, named")
        }
        #expect(try await fixture.count("audit_events WHERE action = 'webhook_event.resent' AND actor = 'operator:sam'") == 1)
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:viewer'") == 1)
    }

    @Test func theLastErrorAndAttemptsOfAFailedDeliveryAreShown() async throws {
        let fixture = try await APIFixture()
        let secret = try await Console.enrol(fixture, "viewer", role: .readonly)
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("hook-2", verify: false)).status == .created)
            let store = fixture.runtime.store
            let now = Date()
            let queued = try await store.webhookEvents(merchantID: fixture.merchantA.id, status: .pending, beforeSequence: nil, limit: 10)
            let event = try #require(queued.first)
            try await store.markWebhookFailed(id: event.id, error: "http 500", nextAttemptAt: now.addingTimeInterval(600), countsAsAttempt: true)
            let attempts = try #require(try await store.webhookEvent(id: event.id)?.attempts)
            #expect(attempts >= 1)
            let viewer = try await Console.signIn(client, "viewer", secret: secret)
            let page = try await Console.get(client, "/console/webhooks?status=pending", cookie: viewer)
            #expect(page.status == .ok)
            #expect(page.text.contains(event.id) && page.text.contains(">http 500<"))
            #expect(page.text.contains("<td>\(attempts)</td>"), "the attempts made")
        }
    }

    @Test func anOperatorLimitedToOneMerchantSeesAndResendsOnlyThatMerchantsEvents() async throws {
        let fixture = try await APIFixture()
        let (_, enrollment) = try await fixture.runtime.operators.create(
            name: "bea", role: .support, merchantNames: ["merchant-b"], password: Console.password, actor: "test")
        let secret = try Encoding.fromBase32(enrollment.secret)
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("hook-a", verify: false)).status == .created)
            let store = fixture.runtime.store
            let event = try #require(try await store.webhookEvents(merchantID: fixture.merchantA.id, status: nil, beforeSequence: nil, limit: 10).first)
            try await store.markWebhookDelivered(id: event.id, at: Date())
            let bea = try await Console.signIn(client, "bea", secret: secret)
            let page = try await Console.get(client, "/console/webhooks", cookie: bea)
            #expect(page.status == .ok && !page.text.contains(event.id))
            let refused = try await Console.post(
                client, "/console/webhooks/\(fixture.merchantA.id)/\(event.id)/resend", [("csrf", try Console.csrf(in: page.text))], cookie: bea)
            #expect(refused.status == .notFound)
            #expect(try await store.webhookEvent(id: event.id)?.status == .delivered)
        }
        #expect(try await fixture.count("audit_events WHERE action = 'webhook_event.resent'") == 0)
    }
}
