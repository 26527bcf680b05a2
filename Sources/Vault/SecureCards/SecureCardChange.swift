public import Foundation

/// What a card change records besides the row: its audit event and its webhook event, both built
/// here by the domain, so every storage engine writes the same events for the same change (the
/// engine only stores them, in the change's own commit).
public struct SecureCardChange: Sendable {
    /// The change's audit event.
    public var audit: AuditEntry
    /// The change's webhook event (`secure_card.registered` or `secure_card.updated`).
    public var event: PendingWebhookEvent

    /// A card registered: `secure_card.registered` with the card's references and masked data.
    /// - Throws: `EncodingError` (not expected).
    public static func registered(_ row: SecureCardRow, audit: AuditEntry, now: Date = Date()) throws -> SecureCardChange {
        SecureCardChange(audit: audit, event: try PendingWebhookEvent(.secureCardRegistered, merchantID: row.merchantID, data: row.webhookData, now: now))
    }

    /// A card's details changed: `secure_card.updated` with the card's references and masked data.
    /// - Throws: `EncodingError` (not expected).
    public static func updated(_ row: SecureCardRow, audit: AuditEntry, now: Date = Date()) throws -> SecureCardChange {
        SecureCardChange(audit: audit, event: try PendingWebhookEvent(.secureCardUpdated, merchantID: row.merchantID, data: row.webhookData, now: now))
    }
}

/// A card deletion: its audit event, and the webhook event it sends once the write knows which
/// schedules it cancelled (found inside the write, so none can be added between).
public struct SecureCardDeletion: Sendable {
    /// The merchant.
    public var merchantID: String
    /// The card's token.
    public var reference: String
    /// Whether the card's sealed data is destroyed too.
    public var purge: Bool
    /// The deletion's audit event (`secure_card.deleted` or `secure_card.purged`).
    public var audit: AuditEntry
    /// When it happens.
    public var at: Date

    /// Creates a value.
    public init(merchantID: String, reference: String, purge: Bool, audit: AuditEntry, at: Date) {
        self.merchantID = merchantID
        self.reference = reference
        self.purge = purge
        self.audit = audit
        self.at = at
    }

    /// `secure_card.deleted`: the card's token, whether it was purged, and the schedules cancelled with it.
    /// - Throws: `EncodingError` (not expected).
    public func event(cancelledSchedules: [String]) throws -> PendingWebhookEvent {
        try PendingWebhookEvent(
            .secureCardDeleted, merchantID: merchantID,
            data: ["secureCardReference": .string(reference), "purged": .bool(purge), "cancelledSchedules": .array(cancelledSchedules.map { .string($0) })],
            now: at)
    }
}
