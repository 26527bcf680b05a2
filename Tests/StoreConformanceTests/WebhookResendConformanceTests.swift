import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// Support on the webhook outbox, on the run's engine: a delivery clears the last error; an event
/// queued again (delivered or expired) is pending and due with its id, body and attempts kept,
/// its error cleared, audited in the same write; another merchant's event is never touched.
@Suite("Store conformance: webhook events queued again")
struct WebhookResendConformanceTests {
    typealias Outbox = WebhookOutboxConformanceTests

    static func audit(_ fixture: StoreFixture, _ id: String) -> AuditEntry {
        AuditEntry(merchantID: fixture.merchantID, actor: "operator", action: "webhook_event.resent", objectType: "webhook_event", objectID: id)
    }

    @Test func aDeliveryClearsTheLastErrorOfAFailedAttempt() async throws {
        let (fixture, queued) = try await Outbox.fixtureWithEvents(0)
        let id = try #require(queued.first)
        let now = Date().addingTimeInterval(1)
        _ = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 1)
        try await fixture.store.markWebhookFailed(id: id, error: "http 500", nextAttemptAt: now, countsAsAttempt: true)
        #expect(try await fixture.store.webhookEvent(id: id)?.lastError == "http 500")
        _ = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 1)
        try await fixture.store.markWebhookDelivered(id: id, at: now)
        let delivered = try #require(try await fixture.store.webhookEvent(id: id))
        #expect(delivered.status == .delivered && delivered.attempts == 2)
        #expect(delivered.lastError == nil)
    }

    @Test func aDeliveredEventQueuedAgainIsDueNowWithItsIdBodyAndAttemptsAndAnAudit() async throws {
        let (fixture, queued) = try await Outbox.fixtureWithEvents(0)
        let id = try #require(queued.first)
        // Stored to the millisecond: compared as read back.
        let now = try #require(Timestamp.parse(Timestamp.string(Date().addingTimeInterval(1))))
        _ = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 1)
        try await fixture.store.markWebhookDelivered(id: id, at: now)
        let before = try #require(try await fixture.store.webhookEvent(id: id))

        let later = now.addingTimeInterval(3600)
        let expiresAt = later.addingTimeInterval(72 * 3600)
        let requeued = try #require(try await fixture.store.requeueWebhookEvent(
            id: id, merchantID: fixture.merchantID, now: later, expiresAt: expiresAt, audit: Self.audit(fixture, id)))
        #expect(requeued.status == .pending && requeued.id == id && requeued.body == before.body && requeued.type == before.type)
        #expect(requeued.attempts == 1 && requeued.lastError == nil && requeued.deliveredAt == nil)
        #expect(requeued.nextAttemptAt == later && requeued.expiresAt == expiresAt)
        #expect(try await fixture.store.webhookEvent(id: id) == requeued)
        #expect(try await fixture.count(
            "SELECT count(*) AS n FROM audit_events WHERE action = 'webhook_event.resent' AND object_id = \(id) AND actor = 'operator'") == 1)
        // Claimed again at once, by one deliverer: the same event, a new delivery.
        let claimed = try await fixture.store.claimWebhookEvents(now: later, leaseUntil: later.addingTimeInterval(60), limit: 10)
        #expect(claimed.map(\.id) == [id])
    }

    @Test func anExpiredEventQueuedAgainIsRetriedForANewPeriodAndAnEarlierExpiryIsNeverShortened() async throws {
        let (fixture, queued) = try await Outbox.fixtureWithEvents(0)
        let id = try #require(queued.first)
        let event = try #require(try await fixture.store.webhookEvent(id: id))
        #expect(try await fixture.store.expireWebhookEvents(now: event.expiresAt.addingTimeInterval(1)) == 1)
        let now = event.expiresAt.addingTimeInterval(10)
        let requeued = try #require(try await fixture.store.requeueWebhookEvent(
            id: id, merchantID: fixture.merchantID, now: now, expiresAt: now.addingTimeInterval(3600), audit: Self.audit(fixture, id)))
        #expect(requeued.status == .pending && requeued.expiresAt == now.addingTimeInterval(3600))
        let shorter = try #require(try await fixture.store.requeueWebhookEvent(
            id: id, merchantID: fixture.merchantID, now: now, expiresAt: now.addingTimeInterval(60), audit: Self.audit(fixture, id)))
        #expect(shorter.expiresAt == now.addingTimeInterval(3600), "queuing again never shortens the retry period")
    }

    @Test func anotherMerchantsEventOrAnUnknownOneIsNotQueuedAndNothingIsAudited() async throws {
        let (fixture, queued) = try await Outbox.fixtureWithEvents(0)
        let id = try #require(queued.first)
        let other = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(verifyOnRegistration: false), actor: "test").merchant
        let now = Date().addingTimeInterval(1)
        _ = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 1)
        try await fixture.store.markWebhookDelivered(id: id, at: now)
        #expect(try await fixture.store.requeueWebhookEvent(
            id: id, merchantID: other.id, now: now, expiresAt: now.addingTimeInterval(60), audit: Self.audit(fixture, id)) == nil)
        #expect(try await fixture.store.requeueWebhookEvent(
            id: "evt_missing", merchantID: fixture.merchantID, now: now, expiresAt: now.addingTimeInterval(60), audit: Self.audit(fixture, id)) == nil)
        #expect(try await fixture.store.webhookEvent(id: id)?.status == .delivered)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'webhook_event.resent'") == 0)
    }
}
