import Foundation
import Testing
@testable import Vault
@testable import VaultPostgres
@testable import VaultSQLite
import Scheduler
import StorageTestSupport

/// A vault with one merchant that has a callback URL and one that has none.
struct WebhookOutboxFixture {
    let vault: VaultFixture
    let withCallback: Merchant
    let withoutCallback: Merchant
    static let now = Date(timeIntervalSince1970: 1_799_582_400)

    init() async throws {
        vault = try await VaultFixture()
        withCallback = try await vault.merchants.create(
            name: "hooked", role: .admin, settings: MerchantSettings(callbackURL: "https://hooks.example.com/vault"), actor: "test").merchant
        withoutCallback = try await vault.merchants.create(name: "silent", role: .admin, settings: .init(), actor: "test").merchant
    }

    var store: any VaultStorage { vault.store }

    @discardableResult
    func enqueue(_ merchant: Merchant, _ type: WebhookEventType = .transactionApproved, at now: Date = Self.now) async throws -> String {
        try await enqueue(type, merchantID: merchant.id, data: ["transactionId": "txn_1"], now: now, retention: 3600)
    }

    /// Queues an event in a write transaction of the engine's own (as the stores do), then runs
    /// `after` in the same transaction (it may throw to roll the write back).
    func enqueue(
        _ type: WebhookEventType, merchantID: String, data: [String: WebhookValue], now: Date = Date(), retention: TimeInterval = 72 * 3600,
        after: @escaping @Sendable () throws -> Void = {}
    ) async throws -> String {
        switch store {
        case let sqlite as SQLiteStore:
            return try await sqlite.database.write { connection in
                let id = try connection.enqueueWebhook(type, merchantID: merchantID, data: data, now: now, retention: retention)
                try after()
                return id
            }
        case let postgres as PostgresStore:
            return try await postgres.write { transaction in
                let id = try await transaction.enqueueWebhook(type, merchantID: merchantID, data: data, now: now, retention: retention)
                try after()
                return id
            }
        default:
            throw UnknownEngine()
        }
    }

    struct UnknownEngine: Error {}

    func count() async throws -> Int {
        try await vault.sql.count("SELECT count(*) AS n FROM webhook_events")
    }
}

struct OutcomeFailed: Error {}

@Suite struct WebhookOutboxTests {
    @Test func anEventQueuedInAWriteThatThrowsRollsBackWithIt() async throws {
        let fixture = try await WebhookOutboxFixture()
        let merchantID = fixture.withCallback.id
        await expectThrowsAsync(OutcomeFailed.self) {
            _ = try await fixture.enqueue(.transactionDeclined, merchantID: merchantID, data: [:]) { throw OutcomeFailed() }
        }
        #expect(try await fixture.count() == 0)
        let id = try await fixture.enqueue(fixture.withCallback)
        #expect(try await fixture.count() == 1)
        #expect(id.hasPrefix("evt_"))
    }

    @Test func aQueuedEventIsPendingDueAtOnceAndExpiresAfterItsRetention() async throws {
        let fixture = try await WebhookOutboxFixture()
        let id = try await fixture.enqueue(fixture.withCallback, .secureCardRegistered)
        let event = try #require(try await fixture.store.webhookEvent(id: id))
        #expect(event.status == .pending)
        #expect(event.attempts == 0)
        #expect(event.nextAttemptAt == WebhookOutboxFixture.now)
        #expect(event.expiresAt == WebhookOutboxFixture.now.addingTimeInterval(3600))
        #expect(event.lastError == nil)
        let body = try WebhookBody.parse(Array(event.body.utf8))
        #expect(body.id == id)
        #expect(body.type == "secure_card.registered")
        #expect(body.merchantId == fixture.withCallback.id)
        #expect(!event.description.contains("txn_1"))
    }

    @Test func anEventForAMerchantWithoutCallbackIsKeptButNotClaimed() async throws {
        let fixture = try await WebhookOutboxFixture()
        let id = try await fixture.enqueue(fixture.withoutCallback)
        let event = try #require(try await fixture.store.webhookEvent(id: id))
        #expect(event.lastError == WebhookEvent.noCallbackError)
        let now = WebhookOutboxFixture.now
        #expect(try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(20), limit: 10).isEmpty)
        _ = try await fixture.vault.merchants.update(
            name: "silent", settings: MerchantSettings(callbackURL: "https://hooks.example.com/later"), actor: "test")
        let claimed = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(20), limit: 10)
        #expect(claimed.map(\.id) == [id])
    }

    @Test func aClaimLeasesEventsSoASecondClaimGetsNoneUntilTheLeaseRunsOut() async throws {
        let fixture = try await WebhookOutboxFixture()
        let first = try await fixture.enqueue(fixture.withCallback)
        let second = try await fixture.enqueue(fixture.withCallback, at: WebhookOutboxFixture.now.addingTimeInterval(1))
        let now = WebhookOutboxFixture.now.addingTimeInterval(1)
        let claimed = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(20), limit: 10)
        #expect(claimed.map(\.id) == [first, second])
        #expect(try await fixture.store.claimWebhookEvents(now: now.addingTimeInterval(19), leaseUntil: now.addingTimeInterval(40), limit: 10).isEmpty)
        let reclaimed = try await fixture.store.claimWebhookEvents(now: now.addingTimeInterval(20), leaseUntil: now.addingTimeInterval(40), limit: 1)
        #expect(reclaimed.map(\.id) == [first])
    }

    @Test func failuresCountAttemptsAndPostponeAndDeliveryIsFinal() async throws {
        let fixture = try await WebhookOutboxFixture()
        let id = try await fixture.enqueue(fixture.withCallback)
        let now = WebhookOutboxFixture.now
        _ = try await fixture.store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(20), limit: 10)
        try await fixture.store.markWebhookFailed(id: id, error: "http 500", nextAttemptAt: now.addingTimeInterval(30), countsAsAttempt: true)
        var event = try #require(try await fixture.store.webhookEvent(id: id))
        #expect(event.attempts == 1)
        #expect(event.leaseUntil == nil)
        #expect(event.lastError == "http 500")
        #expect(try await fixture.store.claimWebhookEvents(now: now.addingTimeInterval(29), leaseUntil: now.addingTimeInterval(60), limit: 10).isEmpty)
        #expect(try await fixture.store.claimWebhookEvents(now: now.addingTimeInterval(30), leaseUntil: now.addingTimeInterval(60), limit: 10).count == 1)
        try await fixture.store.markWebhookDelivered(id: id, at: now.addingTimeInterval(31))
        event = try #require(try await fixture.store.webhookEvent(id: id))
        #expect(event.status == .delivered)
        #expect(event.attempts == 2)
        #expect(event.deliveredAt == now.addingTimeInterval(31))
        try await fixture.store.markWebhookFailed(id: id, error: "late", nextAttemptAt: now, countsAsAttempt: true)
        #expect(try await fixture.store.webhookEvent(id: id)?.status == .delivered)
        #expect(try await fixture.store.claimWebhookEvents(now: now.addingTimeInterval(9999), leaseUntil: now.addingTimeInterval(99_999), limit: 10).isEmpty)
    }

    @Test func pendingEventsExpireAtTheEndOfTheirRetentionUnlessLeased() async throws {
        let fixture = try await WebhookOutboxFixture()
        let leased = try await fixture.enqueue(fixture.withCallback)
        let idle = try await fixture.enqueue(fixture.withoutCallback)
        let now = WebhookOutboxFixture.now
        #expect(try await fixture.store.expireWebhookEvents(now: now.addingTimeInterval(3599)) == 0)
        _ = try await fixture.store.claimWebhookEvents(now: now.addingTimeInterval(3590), leaseUntil: now.addingTimeInterval(3610), limit: 10)
        #expect(try await fixture.store.expireWebhookEvents(now: now.addingTimeInterval(3600)) == 1)
        #expect(try await fixture.store.webhookEvent(id: idle)?.status == .expired)
        #expect(try await fixture.store.webhookEvent(id: idle)?.lastError == WebhookEvent.noCallbackError)
        #expect(try await fixture.store.webhookEvent(id: leased)?.status == .pending)
        #expect(try await fixture.store.expireWebhookEvents(now: now.addingTimeInterval(3610)) == 1)
        let expired = try await fixture.store.webhookEvents(merchantID: nil, status: .expired, beforeSequence: nil, limit: 10)
        #expect(Set(expired.map(\.id)) == [leased, idle])
    }

    @Test func eventsListNewestFirstByMerchantAndStatus() async throws {
        let fixture = try await WebhookOutboxFixture()
        let a = try await fixture.enqueue(fixture.withCallback)
        let b = try await fixture.enqueue(fixture.withoutCallback)
        let c = try await fixture.enqueue(fixture.withCallback)
        let all = try await fixture.store.webhookEvents(merchantID: nil, status: nil, beforeSequence: nil, limit: 10)
        #expect(all.map(\.id) == [c, b, a])
        let mine = try await fixture.store.webhookEvents(merchantID: fixture.withCallback.id, status: .pending, beforeSequence: nil, limit: 10)
        #expect(mine.map(\.id) == [c, a])
        let older = try await fixture.store.webhookEvents(merchantID: nil, status: nil, beforeSequence: all[0].sequence, limit: 1)
        #expect(older.map(\.id) == [b])
    }

    @Test func settledEventsArePurgedAfterTheKeepPeriodAndPendingOnesNever() async throws {
        let fixture = try await WebhookOutboxFixture()
        let now = WebhookOutboxFixture.now
        let day: TimeInterval = 86_400
        let oldDelivered = try await fixture.enqueue(fixture.withCallback, at: now.addingTimeInterval(-40 * day))
        try await fixture.store.markWebhookDelivered(id: oldDelivered, at: now.addingTimeInterval(-40 * day))
        let recentDelivered = try await fixture.enqueue(fixture.withCallback, at: now.addingTimeInterval(-2 * day))
        try await fixture.store.markWebhookDelivered(id: recentDelivered, at: now.addingTimeInterval(-2 * day))
        let oldExpired = try await fixture.enqueue(fixture.withoutCallback, at: now.addingTimeInterval(-40 * day))
        #expect(try await fixture.store.expireWebhookEvents(now: now.addingTimeInterval(-39 * day)) == 1)
        let oldPending = try await fixture.enqueue(fixture.withCallback, at: now.addingTimeInterval(-40 * day))

        let purged = try await fixture.store.purgeWebhookEvents(settledBefore: now.addingTimeInterval(-30 * day), limit: 100)
        #expect(purged == 2)
        #expect(try await fixture.store.webhookEvent(id: oldDelivered) == nil)
        #expect(try await fixture.store.webhookEvent(id: oldExpired) == nil)
        #expect(try await fixture.store.webhookEvent(id: recentDelivered) != nil)
        #expect(try await fixture.store.webhookEvent(id: oldPending)?.status == .pending)
        #expect(try await fixture.store.purgeWebhookEvents(settledBefore: now, limit: 100) == 1, "the recent one, once old enough")
        #expect(try await fixture.count() == 1)
    }

    @Test func aPurgeDeletesAtMostItsLimit() async throws {
        let fixture = try await WebhookOutboxFixture()
        let then = WebhookOutboxFixture.now.addingTimeInterval(-100 * 86_400)
        for _ in 0..<5 {
            let id = try await fixture.enqueue(fixture.withCallback, at: then)
            try await fixture.store.markWebhookDelivered(id: id, at: then)
        }
        #expect(try await fixture.store.purgeWebhookEvents(settledBefore: WebhookOutboxFixture.now, limit: 3) == 3)
        #expect(try await fixture.count() == 2)
    }
}
