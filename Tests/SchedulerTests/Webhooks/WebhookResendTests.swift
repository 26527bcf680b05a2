import Foundation
import StorageTestSupport
import Testing
import Vault
@testable import Scheduler
@testable import VaultSQLite

/// Support's side of delivery against a live receiver: an event delivered after a failed attempt
/// no longer shows the failure, and an event sent again on request is the same event (id, body)
/// in a new delivery, signed at its own instant.
@Suite struct WebhookResendTests {
    @Test func aDeliveryAfterAFailedAttemptClearsTheLastError() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let id = try await fixture.enqueue()
        fixture.receiver.answer(500)
        let now = WebhookDeliveryFixture.now
        #expect(try await fixture.deliverer().deliverDue(now: now) == WebhookDeliveryReport(delivered: 0, failed: 1))
        let failed = try #require(try await fixture.event(id))
        #expect(failed.lastError == "http 500")
        #expect(try await fixture.deliverer().deliverDue(now: failed.nextAttemptAt) == WebhookDeliveryReport(delivered: 1))
        let delivered = try #require(try await fixture.event(id))
        #expect(delivered.status == .delivered && delivered.attempts == 2)
        #expect(delivered.lastError == nil, "the error of an attempt before the delivery is not the event's state")
        await fixture.tearDown()
    }

    @Test func aDeliveredEventSentAgainIsTheSameEventSignedAtItsNewDelivery() async throws {
        let fixture = try await WebhookDeliveryFixture()
        let id = try await fixture.enqueue(.transactionApproved)
        let now = WebhookDeliveryFixture.now
        #expect(try await fixture.deliverer().deliverDue(now: now) == WebhookDeliveryReport(delivered: 1))

        let later = now.addingTimeInterval(2 * 86_400)
        let events = WebhookEventService(store: fixture.store, retention: 72 * 3600)
        let queued = try await events.resend(id: id, merchant: fixture.merchant, actor: "support", now: later)
        #expect(queued.status == .pending && queued.id == id)
        await #expect(throws: WebhookEventError.notFound) {
            try await events.resend(id: "evt_missing", merchant: fixture.merchant, actor: "support", now: later)
        }
        #expect(try await fixture.deliverer().deliverDue(now: later) == WebhookDeliveryReport(delivered: 1))

        let received = fixture.receiver.received
        #expect(received.map(\.eventID) == [id, id], "receivers deduplicate by the event id")
        #expect(received[0].text == received[1].text, "the same body")
        let key = try await fixture.signingKey()
        let first = try #require(received[0].headers["vault-signature"])
        let second = try #require(received[1].headers["vault-signature"])
        #expect(first != second)
        #expect(WebhookSignature.isValid(header: second, body: received[1].body, key: key, now: later))
        #expect(!WebhookSignature.isValid(header: first, body: received[0].body, key: key, now: later), "the first delivery's signature is stale")
        let event = try #require(try await fixture.event(id))
        #expect(event.status == .delivered && event.attempts == 2)
        await fixture.tearDown()
    }
}
