public import Foundation

/// A webhook event with its id, body and times fixed, ready for the outbox.
///
/// Built before a write body runs (off the single writer thread), so queuing it in the write
/// transaction is one insert.
public struct PendingWebhookEvent: Sendable, Equatable {
    /// `evt_...`, also in the body.
    public var id: String
    /// What happened.
    public var type: WebhookEventType
    /// Whose event it is.
    public var merchantID: String
    /// The canonical JSON body, sent byte for byte on every attempt.
    public var body: String
    /// When the outcome happened (also the first attempt's time), as stored.
    public var createdAt: String
    /// Until when delivery is retried, as stored.
    public var expiresAt: String

    /// Fixes an event's id and body.
    /// - Parameters:
    ///   - type: what happened.
    ///   - merchantID: whose event it is.
    ///   - data: the body's `data` object: references, amounts and masked values only (digit runs that
    ///     look like a card number are masked anyway, see `WebhookBody`).
    ///   - now: when the outcome happened.
    ///   - retention: how long delivery is retried (configuration `webhooks.retryHours`).
    /// - Throws: `EncodingError` (not expected for these values).
    public init(_ type: WebhookEventType, merchantID: String, data: [String: WebhookValue], now: Date = Date(), retention: TimeInterval = 72 * 3600) throws {
        id = OpaqueToken.makeTimeOrdered(prefix: "evt_", bits: 128, at: now)
        self.type = type
        self.merchantID = merchantID
        body = try WebhookBody(id: id, type: type, createdAt: now, merchantID: merchantID, data: data).json()
        createdAt = Timestamp.string(now)
        expiresAt = Timestamp.string(now.addingTimeInterval(retention))
    }
}
