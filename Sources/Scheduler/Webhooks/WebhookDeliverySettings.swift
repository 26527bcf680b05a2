public import Foundation

/// How webhook events are delivered and retried.
public struct WebhookDeliverySettings: Sendable, Equatable {
    /// Deadline of one POST, from connecting to the end of the answer.
    public var timeout: Duration
    /// First retry delay; doubles with each failed attempt.
    public var initialBackoff: TimeInterval
    /// Longest delay between attempts.
    public var maxBackoff: TimeInterval
    /// Events claimed per batch.
    public var batchSize: Int
    /// POSTs in flight at once.
    public var concurrency: Int
    /// Part of each delay taken off at random (0.1: the delay is 90-100 % of the nominal one),
    /// so events that failed together do not all come back at the same instant.
    public var jitter: Double
    /// How long delivered and expired events are kept (for `GET /v1/webhook-events` and support)
    /// before a delivery round deletes them; the outbox would otherwise grow by every charge.
    public var keepSettled: TimeInterval

    /// Creates settings; values are clamped to sane minimums (a delay of at least one second,
    /// batches and concurrency of at least one).
    public init(
        timeout: Duration = .seconds(10), initialBackoff: TimeInterval = 30, maxBackoff: TimeInterval = 3600, batchSize: Int = 100,
        concurrency: Int = 8, jitter: Double = 0.1, keepSettled: TimeInterval = 30 * 86_400
    ) {
        self.timeout = max(timeout, .milliseconds(100))
        self.initialBackoff = max(1, initialBackoff)
        self.maxBackoff = max(self.initialBackoff, maxBackoff)
        self.batchSize = max(1, batchSize)
        self.concurrency = max(1, concurrency)
        self.jitter = min(max(0, jitter), 0.5)
        self.keepSettled = max(3600, keepSettled)
    }

    /// The delay before the attempt after failed attempt number `attempt` (1 for the first):
    /// `min(initialBackoff * 2^(attempt-1), maxBackoff)`, less up to `jitter` of it.
    /// - Parameter random: a value in `0..<1` choosing the jitter.
    public func backoff(afterAttempt attempt: Int, random: Double) -> TimeInterval {
        let doublings = min(max(attempt - 1, 0), 62)
        let nominal = min(initialBackoff * pow(2, Double(doublings)), maxBackoff)
        return max(1, nominal * (1 - jitter * min(max(random, 0), 1)))
    }

    /// How long a claimed batch is leased: long enough to send all of it at the configured
    /// concurrency, with a whole timeout to spare, and never less than two timeouts. Another
    /// deliverer may take the events over only after a crash left the lease to run out.
    public var lease: TimeInterval {
        let waves = (batchSize + concurrency - 1) / concurrency
        return Self.seconds(timeout) * Double(max(2, waves + 1))
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// What one delivery round did.
public struct WebhookDeliveryReport: Sendable, Equatable, Codable {
    /// Events a receiver accepted (2xx).
    public var delivered = 0
    /// Attempts that failed (non-2xx, timeout, connection refused); those events retry later.
    public var failed = 0
    /// Events whose retry period ended undelivered.
    public var expired = 0
    /// Settled events deleted after ``WebhookDeliverySettings/keepSettled``.
    public var purged = 0

    /// A report with these counts.
    public init(delivered: Int = 0, failed: Int = 0, expired: Int = 0, purged: Int = 0) {
        self.delivered = delivered
        self.failed = failed
        self.expired = expired
        self.purged = purged
    }

    /// True when nothing happened.
    public var isEmpty: Bool { delivered == 0 && failed == 0 && expired == 0 && purged == 0 }
}
