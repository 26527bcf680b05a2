import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `WebhookStore`, the outbox, on the run's engine: events queued by the stores' own writes are
/// claimed by one deliverer each (however many claim at once on however many servers), a leased
/// event is offered to no one else until its lease ends, a failed attempt is retried at the time
/// given, a delivered event is never sent again, and only settled events are expired or purged.
@Suite("Store conformance: webhook outbox")
struct WebhookOutboxConformanceTests {
    static let callback = "https://merchant.example/hook"

    /// A fixture whose merchant has a callback URL, with `count` more cards registered (each queues
    /// a `secure_card.registered` event); the ids of the events queued, oldest first.
    static func fixtureWithEvents(_ count: Int) async throws -> (StoreFixture, [String]) {
        let fixture = try await StoreFixture(callbackURL: callback)
        for index in 0..<count {
            _ = try await fixture.cards.register(
                SecureCardRegistration(
                    merchantReference: "hook-\(index)",
                    source: CardSource(method: "ocr", card: CardInput(number: "4111111111111111", expiryDate: "1230")), verify: false),
                merchant: fixture.merchant, actor: "test", now: Date())
        }
        let events = try await fixture.store.webhookEvents(merchantID: fixture.merchantID, status: .pending, beforeSequence: nil, limit: 1000)
        return (fixture, events.reversed().map(\.id))
    }

    @Test func queuedEventsAreClaimedOldestFirstUpToTheLimit() async throws {
        let (fixture, queued) = try await Self.fixtureWithEvents(5)
        #expect(queued.count == 6)  // the fixture's own card, then five
        let now = Date().addingTimeInterval(1)
        let first = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 4)
        #expect(first.map(\.id) == Array(queued.prefix(4)))
        let rest = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 4)
        #expect(rest.map(\.id) == Array(queued.suffix(2)))
    }

    @Test func webhookEventsClaimedOnTwoServersAtOnceGoToOneDelivererEach() async throws {
        let (fixture, queued) = try await Self.fixtureWithEvents(59)
        #expect(queued.count == 60)
        let now = Date().addingTimeInterval(1)
        let claimed = try await fixture.withAnotherStore { second in
            try await withThrowingTaskGroup(of: [String].self) { group in
                for index in 0..<6 {
                    let store = index % 2 == 0 ? fixture.store : second
                    group.addTask {
                        var ids: [String] = []
                        while true {
                            let batch = try await store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 4)
                            if batch.isEmpty { return ids }
                            ids += batch.map(\.id)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
        }
        #expect(claimed.count == 60)
        #expect(Set(claimed) == Set(queued))
    }

    @Test func aLeasedEventIsOfferedToNoOneUntilItsLeaseEnds() async throws {
        let (fixture, queued) = try await Self.fixtureWithEvents(0)
        let now = Date().addingTimeInterval(1)
        #expect(try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10).map(\.id) == queued)
        #expect(try await fixture.store.claimWebhookEvents(now: now.addingTimeInterval(59), leaseUntil: now.addingTimeInterval(120), limit: 10).isEmpty)
        let again = try await fixture.store.claimWebhookEvents(now: now.addingTimeInterval(61), leaseUntil: now.addingTimeInterval(120), limit: 10)
        #expect(again.map(\.id) == queued)
    }

    @Test func aFailedAttemptIsRetriedAtTheTimeGivenAndCounted() async throws {
        let (fixture, queued) = try await Self.fixtureWithEvents(0)
        let id = try #require(queued.first)
        let now = Date().addingTimeInterval(1)
        _ = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10)
        try await fixture.store.markWebhookFailed(id: id, error: "HTTP 503", nextAttemptAt: now.addingTimeInterval(300), countsAsAttempt: true)
        let failed = try #require(try await fixture.store.webhookEvent(id: id))
        #expect(failed.status == .pending)
        #expect(failed.attempts == 1)
        #expect(failed.lastError == "HTTP 503")
        // The lease is released, but the event waits for its next attempt.
        #expect(try await fixture.store.claimWebhookEvents(now: now.addingTimeInterval(299), leaseUntil: now.addingTimeInterval(400), limit: 10).isEmpty)
        let retried = try await fixture.store.claimWebhookEvents(now: now.addingTimeInterval(300), leaseUntil: now.addingTimeInterval(400), limit: 10)
        #expect(retried.map(\.id) == [id])
        // A skipped attempt (nothing sent) is not counted.
        try await fixture.store.markWebhookFailed(id: id, error: WebhookEvent.noCallbackError, nextAttemptAt: now.addingTimeInterval(600), countsAsAttempt: false)
        #expect(try await fixture.store.webhookEvent(id: id)?.attempts == 1)
    }

    @Test func aDeliveredEventIsNeverClaimedAgain() async throws {
        let (fixture, queued) = try await Self.fixtureWithEvents(1)
        let now = Date().addingTimeInterval(1)
        let claimed = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10)
        #expect(claimed.map(\.id) == queued)
        try await fixture.store.markWebhookDelivered(id: queued[0], at: now)
        let delivered = try #require(try await fixture.store.webhookEvent(id: queued[0]))
        #expect(delivered.status == .delivered)
        #expect(delivered.attempts == 1)
        let later = try await fixture.store.claimWebhookEvents(now: now.addingTimeInterval(3600), leaseUntil: now.addingTimeInterval(3700), limit: 10)
        #expect(later.map(\.id) == [queued[1]])
        // A purge deletes only settled events.
        #expect(try await fixture.store.purgeWebhookEvents(settledBefore: now.addingTimeInterval(1), limit: 100) == 1)
        #expect(try await fixture.store.webhookEvent(id: queued[0]) == nil)
        #expect(try await fixture.store.webhookEvent(id: queued[1])?.status == .pending)
    }

    @Test func anUnleasedPendingEventExpiresAfterItsRetryPeriodAndADeliveredOneNever() async throws {
        let (fixture, queued) = try await Self.fixtureWithEvents(1)
        let now = Date().addingTimeInterval(1)
        _ = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 1)
        try await fixture.store.markWebhookDelivered(id: queued[0], at: now)
        // Within the retry period nothing expires.
        #expect(try await fixture.store.expireWebhookEvents(now: now.addingTimeInterval(3600)) == 0)
        let afterRetryPeriod = now.addingTimeInterval(365 * 86_400)
        #expect(try await fixture.store.expireWebhookEvents(now: afterRetryPeriod) == 1)
        #expect(try await fixture.store.webhookEvent(id: queued[0])?.status == .delivered)
        #expect(try await fixture.store.webhookEvent(id: queued[1])?.status == .expired)
        #expect(try await fixture.store.claimWebhookEvents(now: afterRetryPeriod, leaseUntil: afterRetryPeriod.addingTimeInterval(60), limit: 10).isEmpty)
        #expect(try await fixture.store.purgeWebhookEvents(settledBefore: afterRetryPeriod.addingTimeInterval(1), limit: 100) == 2)
    }

    @Test func eventsOfAMerchantWithoutACallbackAreNotClaimed() async throws {
        let fixture = try await StoreFixture()
        let pending = try await fixture.store.webhookEvents(merchantID: fixture.merchantID, status: .pending, beforeSequence: nil, limit: 10)
        #expect(pending.count == 1)
        #expect(pending.first?.lastError == WebhookEvent.noCallbackError)
        let now = Date().addingTimeInterval(1)
        #expect(try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10).isEmpty)
    }
}
