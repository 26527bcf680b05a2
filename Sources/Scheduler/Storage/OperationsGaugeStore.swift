public import Foundation

/// What the on-call gauges of `/metrics` read, for every merchant at once: each a count or one row
/// through an index, cheap enough to read every few seconds.
public protocol OperationsGaugeStore: Sendable {
    /// Webhook events still to deliver (`pending`), and when the oldest of them was queued.
    func webhookBacklog() async throws -> WebhookBacklog
    /// Steps whose last attempt's outcome is unknown (its transaction `in_doubt`), waiting for the
    /// next run to look it up at the gateway.
    func stepsInDoubt() async throws -> Int
    /// The charge run that finished last (`completed` or `failed`, dry runs left out), or nil.
    func lastFinishedChargeRun() async throws -> ChargeRunRecord?
}

/// The webhook outbox's backlog (``OperationsGaugeStore/webhookBacklog()``).
public struct WebhookBacklog: Sendable, Equatable {
    /// Events not yet delivered nor expired.
    public var pending: Int
    /// When the oldest of them was queued; nil when none is pending.
    public var oldestQueuedAt: Date?

    public init(pending: Int, oldestQueuedAt: Date?) {
        self.pending = pending
        self.oldestQueuedAt = oldestQueuedAt
    }
}
