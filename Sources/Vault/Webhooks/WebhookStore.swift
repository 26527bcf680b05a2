public import Foundation

/// The webhook outbox: events queued in the transaction of the outcomes they report (by the
/// store's own writes), then claimed, sent and settled by deliverers.
///
/// Claiming leases events, so any number of deliverers (threads or processes, later servers
/// sharing PostgreSQL with `FOR UPDATE SKIP LOCKED`) never send one event at once.
public protocol WebhookStore: Sendable {
    /// Leases up to `limit` pending events due by `now` whose merchant is active and has a
    /// `callbackUrl` and that no other deliverer holds, until `leaseUntil`; oldest due first.
    func claimWebhookEvents(now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookEvent]
    /// Records a 2xx answer: the event is `delivered` (its last error cleared) and never sent again
    /// unless an operator queues it again (``requeueWebhookEvent(id:merchantID:now:expiresAt:audit:)``).
    func markWebhookDelivered(id: String, at: Date) async throws
    /// Records a failed or skipped attempt, releases the lease and sets the next attempt.
    /// - Parameters:
    ///   - error: a short reason (never a body); stored as `last_error`.
    ///   - countsAsAttempt: false when nothing was sent (no `callbackUrl`).
    func markWebhookFailed(id: String, error: String, nextAttemptAt: Date, countsAsAttempt: Bool) async throws
    /// Marks pending, unleased events whose retry period ended by `now` `expired`; returns how many.
    func expireWebhookEvents(now: Date) async throws -> Int
    /// Deletes up to `limit` settled events (`delivered` or `expired`) whose last attempt was
    /// before `cutoff`; returns how many. Pending events are never deleted.
    func purgeWebhookEvents(settledBefore cutoff: Date, limit: Int) async throws -> Int
    /// One event.
    func webhookEvent(id: String) async throws -> WebhookEvent?
    /// A page of events, newest first, optionally of one merchant and status, before `beforeSequence`.
    func webhookEvents(merchantID: String?, status: WebhookEventStatus?, beforeSequence: Int64?, limit: Int) async throws -> [WebhookEvent]
    /// Queues the event `id` of `merchantID` again, whatever its status, with `audit` in the same
    /// write: `pending`, due at `now`, retried until `expiresAt` at least, its last error and
    /// delivery instant cleared; its id, type, body and attempt count kept (a new delivery of the
    /// same event). A deliverer holding it keeps its lease.
    /// - Returns: the event as queued; nil, writing nothing, when the merchant has no such event.
    func requeueWebhookEvent(id: String, merchantID: String, now: Date, expiresAt: Date, audit: AuditEntry) async throws -> WebhookEvent?
    /// Replaces the body of the event `id` by `new` if it is still `old`, changing nothing else: its
    /// sealed fields re-sealed under a newer data key (the same body once opened). Whether it was replaced.
    func resealWebhookEventBody(id: String, old: String, new: String) async throws -> Bool
}

extension WebhookEvent {
    /// `last_error` of events whose merchant has no `callbackUrl`, for every storage engine.
    public static let noCallbackError = "no callbackUrl"
}
