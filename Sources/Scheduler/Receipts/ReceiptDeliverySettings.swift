public import Foundation

/// How e-mail receipts are retried (configuration `receipts`).
public struct ReceiptDeliverySettings: Sendable, Equatable {
    /// Attempts the mail program may refuse before the receipt is marked `failed` for good.
    public var maxAttempts: Int
    /// Wait after the first refusal; doubled after each further one.
    public var initialBackoff: TimeInterval
    /// Longest wait between attempts.
    public var maxBackoff: TimeInterval
    /// How long a claimed receipt is held by one deliverer: a deliverer that dies holding it leaves
    /// it to be claimed again after this long.
    public var lease: TimeInterval
    /// Receipts claimed at a time.
    public var batchSize: Int
    /// How long a sent or failed receipt is kept before a delivery round deletes it.
    public var retention: TimeInterval

    /// Creates settings.
    public init(
        maxAttempts: Int = 8, initialBackoff: TimeInterval = 60, maxBackoff: TimeInterval = 3600, lease: TimeInterval = 300, batchSize: Int = 20,
        retention: TimeInterval = 90 * 86_400
    ) {
        self.retention = retention
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.lease = lease
        self.batchSize = max(1, batchSize)
    }

    /// The wait after `attempt` refusals: `min(initial * 2^(attempt-1), max)`.
    public func backoff(afterAttempt attempt: Int) -> TimeInterval {
        min(initialBackoff * pow(2, Double(max(0, min(attempt - 1, 30)))), maxBackoff)
    }
}

/// What one delivery round did.
public struct ReceiptDeliveryReport: Sendable, Equatable {
    /// Taken by the mail program.
    public var sent = 0
    /// Refused and to be tried again.
    public var retrying = 0
    /// Refused for the last time (or unreadable, or altered): `failed`.
    public var failed = 0
    /// Of the failed, those not sent because their stored row fails its binding (altered in the database).
    public var altered = 0
    /// Sent and failed receipts deleted by the retention purge.
    public var purged = 0

    /// Creates a report.
    public init(sent: Int = 0, retrying: Int = 0, failed: Int = 0, altered: Int = 0, purged: Int = 0) {
        self.sent = sent
        self.retrying = retrying
        self.failed = failed
        self.altered = altered
        self.purged = purged
    }

    /// Nothing happened.
    public var isEmpty: Bool { sent == 0 && retrying == 0 && failed == 0 && purged == 0 }
}
