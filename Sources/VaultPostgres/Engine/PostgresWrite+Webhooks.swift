public import Foundation
import PostgresNIO
public import Vault

extension PostgresWrite {
    /// `last_error` of events whose merchant has no `callbackUrl` (as on SQLite).
    public static let noCallbackError = "no callbackUrl"

    /// Queues a webhook event inside this transaction, so it commits or rolls back with the
    /// outcome it reports (as `SQLiteConnection.enqueueWebhook`): always queued; without a
    /// `callbackUrl` it waits with `last_error` "no callbackUrl" until it expires.
    /// - Returns: the event id, `evt_...`.
    /// - Throws: `PostgresStoreError.foreignKeyViolation` for an unknown merchant; server errors.
    @discardableResult
    public func enqueueWebhook(
        _ type: WebhookEventType, merchantID: String, data: [String: WebhookValue], now: Date = Date(), retention: TimeInterval = 72 * 3600
    ) async throws -> String {
        let event = try PendingWebhookEvent(type, merchantID: merchantID, data: data, now: now, retention: retention)
        try await enqueueWebhook(event, merchantHasCallback: merchantHasCallback(merchantID))
        return event.id
    }

    /// Queues a prepared webhook event inside this transaction.
    /// - Parameter merchantHasCallback: whether its merchant has a `callbackUrl` (``merchantHasCallback(_:)``).
    public func enqueueWebhook(_ event: PendingWebhookEvent, merchantHasCallback: Bool) async throws {
        try await run(
            """
            INSERT INTO webhook_events (id, merchant_id, type, payload, status, attempts, next_attempt_at, last_error, created_at, expires_at)
            VALUES (\(event.id), \(event.merchantID), \(event.type.rawValue), \(event.body), \(unescaped: WebhookEventStatus.pending.sqlLiteral), 0, \(event.createdAt),
                \(merchantHasCallback ? nil : Self.noCallbackError), \(event.createdAt), \(event.expiresAt))
            """)
    }

    /// Queues prepared webhook events inside this transaction in one statement, in the order given:
    /// as ``enqueueWebhook(_:merchantHasCallback:)`` one by one, each merchant's `callbackUrl` read
    /// in the same statement (an event of a merchant without one waits with `last_error` "no callbackUrl").
    /// - Throws: `PostgresStoreError.foreignKeyViolation` for an unknown merchant; server errors.
    public func enqueueWebhooks(_ events: [PendingWebhookEvent]) async throws {
        guard !events.isEmpty else { return }
        var rows = PostgresRowSet([
            ("id", "text"), ("merchant_id", "text"), ("type", "text"), ("payload", "text"), ("created_at", "text"), ("expires_at", "text"),
        ])
        for event in events {
            rows.append([event.id, event.merchantID, event.type.rawValue, event.body, event.createdAt, event.expiresAt])
        }
        var insert: PostgresQuery = """
            INSERT INTO webhook_events (id, merchant_id, type, payload, status, attempts, next_attempt_at, last_error, created_at, expires_at)
            SELECT w.id, w.merchant_id, w.type, w.payload, \(unescaped: WebhookEventStatus.pending.sqlLiteral), 0, w.created_at,
                CASE WHEN m.callback_url IS NULL THEN \(Self.noCallbackError) END, w.created_at, w.expires_at FROM
            """
        rows.appendSelect(to: &insert)
        insert.sql += " AS w"
        insert.sql += " LEFT JOIN merchants m ON m.id = w.merchant_id ORDER BY w.ord"
        try await run(insert)
    }

    /// Whether the merchant has a `callbackUrl` (false for an unknown merchant).
    public func merchantHasCallback(_ merchantID: String) async throws -> Bool {
        try await row("SELECT callback_url FROM merchants WHERE id = \(merchantID)")?.optionalString("callback_url") != nil
    }
}
