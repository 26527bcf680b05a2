import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// `GET /v1/webhook-events` and `POST /v1/webhook-events/{id}/resend`: the merchant's events with
/// their delivery state (never a body), filtered by status; a delivered event queued again; bad
/// input a clear 4xx that changes nothing; another merchant's events out of reach.
@Suite struct WebhookEventRoutesTests {
    @Test func eventsAreListedByStatusAndADeliveredOneIsQueuedAgain() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("hook-1", verify: false)).status == .created)
            let pending = try await client.send(.get, "/v1/webhook-events?status=pending", key: fixture.readonlyA)
            #expect(pending.status == .ok, "\(pending.text)")
            let rows = try #require(pending.json["data"] as? [[String: Any]])
            let event = try #require(rows.first)
            let id = try #require(event["id"] as? String)
            #expect(event["type"] as? String == "secure_card.registered" && event["status"] as? String == "pending")
            #expect(event["body"] == nil && !pending.text.contains("4242424242424242"))

            let store = fixture.runtime.store
            let now = Date()
            _ = try await store.claimWebhookEvents(now: now.addingTimeInterval(1), leaseUntil: now.addingTimeInterval(60), limit: 100)
            try await store.markWebhookDelivered(id: id, at: now)
            let delivered = try await client.send(.get, "/v1/webhook-events?status=delivered", key: fixture.adminA)
            #expect((delivered.json["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            #expect((delivered.json["data"] as? [[String: Any]])?.first?["nextAttemptAt"] is NSNull)

            for (query, status, param) in [("status=sent", HTTPResponse.Status.unprocessableContent, "status"), ("cursor=zz", .unprocessableContent, "cursor"),
                                           ("type=x", .badRequest, "type")] {
                let refused = try await client.send(.get, "/v1/webhook-events?\(query)", key: fixture.adminA)
                #expect(refused.status == status, "\(query)")
                #expect(refused.error["param"] as? String == param, "\(query)")
            }
            #expect(try await client.send(.get, "/v1/webhook-events", key: fixture.runnerA).status == .forbidden)
            #expect(try await client.send(.post, "/v1/webhook-events/\(id)/resend", key: fixture.readonlyA).status == .forbidden)
            #expect(try await client.send(.post, "/v1/webhook-events/\(id)/resend", key: fixture.adminB).status == .notFound)
            #expect(try await client.send(.post, "/v1/webhook-events/evt_missing/resend", key: fixture.adminA).status == .notFound)
            #expect(try await store.webhookEvent(id: id)?.status == .delivered, "refused requests change nothing")
            #expect(try await fixture.count("audit_events WHERE action = 'webhook_event.resent'") == 0)

            let resent = try await client.send(.post, "/v1/webhook-events/\(id)/resend", key: fixture.adminA)
            #expect(resent.status == .accepted, "\(resent.text)")
            #expect(resent.json["id"] as? String == id && resent.json["status"] as? String == "pending")
            #expect(resent.json["nextAttemptAt"] is String && resent.json["deliveredAt"] is NSNull)
            #expect(try await store.webhookEvent(id: id)?.status == .pending)
            #expect(try await fixture.count("audit_events WHERE action = 'webhook_event.resent'") == 1)
            let forB = try await client.send(.get, "/v1/webhook-events", key: fixture.adminB)
            #expect((forB.json["data"] as? [[String: Any]])?.contains { $0["id"] as? String == id } == false)
        }
    }
}
