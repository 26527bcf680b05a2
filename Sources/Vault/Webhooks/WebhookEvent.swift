public import Foundation

/// Where an event is in its delivery.
public enum WebhookEventStatus: String, Sendable, Codable, CaseIterable {
    /// Waiting for its first or next attempt.
    case pending
    /// A receiver answered 2xx.
    case delivered
    /// Not delivered within the retry period; no more attempts.
    case expired

    /// Events no longer waiting for an attempt, which the retention period purges.
    public static let settled: [WebhookEventStatus] = [.delivered, .expired]
}

/// One queued webhook event (a row of the outbox) with its delivery state.
///
/// `body` is the exact JSON POSTed; it never holds card numbers or key material, but
/// `description` leaves it out all the same, so logging an event cannot leak merchant data.
public struct WebhookEvent: Sendable, Equatable, CustomStringConvertible {
    /// Position in the outbox (delivery order).
    public var sequence: Int64
    /// `evt_...`, also in the body: receivers deduplicate by it.
    public var id: String
    /// The merchant it belongs to and is POSTed to.
    public var merchantID: String
    /// The event type's raw name (`transaction.approved`, ...).
    public var type: String
    /// The JSON body, as sent.
    public var body: String
    /// Delivery state.
    public var status: WebhookEventStatus
    /// Delivery attempts made so far.
    public var attempts: Int
    /// Not attempted before this instant.
    public var nextAttemptAt: Date
    /// While set and in the future, one deliverer holds the event and no other may send it.
    public var leaseUntil: Date?
    /// Why the last attempt failed (`http 500`, `timeout`, `no callbackUrl`, ...); never a body.
    public var lastError: String?
    /// When it was queued.
    public var createdAt: Date
    /// When a receiver accepted it.
    public var deliveredAt: Date?
    /// No attempts after this instant.
    public var expiresAt: Date

    /// Creates an event value.
    public init(
        sequence: Int64, id: String, merchantID: String, type: String, body: String, status: WebhookEventStatus, attempts: Int,
        nextAttemptAt: Date, leaseUntil: Date?, lastError: String?, createdAt: Date, deliveredAt: Date?, expiresAt: Date
    ) {
        self.sequence = sequence
        self.id = id
        self.merchantID = merchantID
        self.type = type
        self.body = body
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.leaseUntil = leaseUntil
        self.lastError = lastError
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
        self.expiresAt = expiresAt
    }

    /// Id, type, merchant, status and attempts; never the body.
    public var description: String {
        "WebhookEvent(\(id), \(type), merchant \(merchantID), \(status.rawValue), attempts \(attempts))"
    }
}
