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

    /// Creates settings.
    public init(maxAttempts: Int = 8, initialBackoff: TimeInterval = 60, maxBackoff: TimeInterval = 3600, lease: TimeInterval = 300, batchSize: Int = 20) {
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
    /// Refused for the last time (or unreadable): `failed`.
    public var failed = 0

    /// Creates a report.
    public init(sent: Int = 0, retrying: Int = 0, failed: Int = 0) {
        self.sent = sent
        self.retrying = retrying
        self.failed = failed
    }

    /// Nothing happened.
    public var isEmpty: Bool { sent == 0 && retrying == 0 && failed == 0 }
}
