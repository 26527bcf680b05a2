public import Foundation
public import Vault

extension SQLiteConnection {
    /// Queues a webhook event inside the caller's transaction, so it commits or rolls back
    /// with the outcome it reports.
    ///
    /// The event is always queued. When the merchant has no `callbackUrl` yet it is recorded
    /// with `last_error` "no callbackUrl" and waits, undelivered, until it expires, so setting
    /// a `callbackUrl` within the retry period still delivers it.
    /// - Parameters:
    ///   - type: what happened.
    ///   - merchantID: whose event it is.
    ///   - data: the body's `data` object: references, amounts and masked values only (never card
    ///     numbers; digit runs that look like one are masked anyway, see `WebhookBody`).
    ///   - now: when the outcome happened (`createdAt`, first attempt time).
    ///   - retention: how long delivery is retried (configuration `webhooks.retryHours`).
    /// - Returns: the event id, `evt_...`.
    /// - Throws: `SQLiteError` (including a foreign-key failure for an unknown merchant).
    @discardableResult
    public func enqueueWebhook(
        _ type: WebhookEventType, merchantID: String, data: [String: WebhookValue], now: Date = Date(),
        retention: TimeInterval = 72 * 3600
    ) throws -> String {
        let event = try PendingWebhookEvent(type, merchantID: merchantID, data: data, now: now, retention: retention)
        try enqueueWebhook(event, merchantHasCallback: merchantHasCallback(merchantID))
        return event.id
    }

    /// Queues a prepared webhook event inside the caller's transaction.
    ///
    /// - Parameters:
    ///   - event: the event.
    ///   - merchantHasCallback: whether its merchant has a `callbackUrl` (``merchantHasCallback(_:)``,
    ///     asked once per write body for many events); without one the event waits undelivered, with
    ///     `last_error` "no callbackUrl", until it expires.
    /// - Throws: `SQLiteError` (including a foreign-key failure for an unknown merchant).
    public func enqueueWebhook(_ event: PendingWebhookEvent, merchantHasCallback: Bool) throws {
        try run(
            """
            INSERT INTO webhook_events (id, merchant_id, type, payload, status, attempts, next_attempt_at, last_error, created_at, expires_at)
            VALUES (\(event.id), \(event.merchantID), \(event.type.rawValue), \(event.body), \(unescaped: WebhookEventStatus.pending.sqlLiteral), 0, \(event.createdAt),
                \(merchantHasCallback ? nil : WebhookEvent.noCallbackError), \(event.createdAt), \(event.expiresAt))
            """)
    }

    /// Whether the merchant has a `callbackUrl` (false for an unknown merchant).
    /// - Throws: `SQLiteError`.
    public func merchantHasCallback(_ merchantID: String) throws -> Bool {
        try queryOne("SELECT callback_url FROM merchants WHERE id = \(merchantID)")?.optionalString("callback_url") != nil
    }
}

extension SQLiteStore: WebhookStore {
    public func claimWebhookEvents(now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookEvent] {
        let events = try await database.write { connection in
            // Only events of active merchants with a callback URL are sent.
            try SQLiteLeasedOutbox.claimDue(
                "webhook_events", pending: WebhookEventStatus.pending, join: "JOIN merchants m ON m.id = o.merchant_id", eligible: "AND m.status = " + Merchant.Status.active.sqlLiteral + " AND m.callback_url IS NOT NULL",
                now: now, leaseUntil: leaseUntil, limit: limit, in: connection
            ).map(Self.webhookEvent)
        }
        return events.sorted { ($0.nextAttemptAt, $0.sequence) < ($1.nextAttemptAt, $1.sequence) }
    }

    public func markWebhookDelivered(id: String, at: Date) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE webhook_events SET status = \(unescaped: WebhookEventStatus.delivered.sqlLiteral), attempts = attempts + 1, delivered_at = \(Timestamp.string(at)),
                    lease_until = NULL, last_error = NULL
                WHERE id = \(id) AND status = \(unescaped: WebhookEventStatus.pending.sqlLiteral)
                """)
        }
    }

    public func markWebhookFailed(id: String, error: String, nextAttemptAt: Date, countsAsAttempt: Bool) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE webhook_events SET attempts = attempts + \(countsAsAttempt ? 1 : 0),
                    next_attempt_at = \(Timestamp.string(nextAttemptAt)), last_error = \(String(error.prefix(200))), lease_until = NULL
                WHERE id = \(id) AND status = \(unescaped: WebhookEventStatus.pending.sqlLiteral)
                """)
        }
    }

    public func expireWebhookEvents(now: Date) async throws -> Int {
        let nowText = Timestamp.string(now)
        return try await database.write { connection in
            try connection.run(
                """
                UPDATE webhook_events SET status = \(unescaped: WebhookEventStatus.expired.sqlLiteral)
                WHERE status = \(unescaped: WebhookEventStatus.pending.sqlLiteral) AND expires_at <= \(nowText) AND (lease_until IS NULL OR lease_until <= \(nowText))
                """)
            return connection.changes
        }
    }

    public func purgeWebhookEvents(settledBefore cutoff: Date, limit: Int) async throws -> Int {
        let cutoffText = Timestamp.string(cutoff)
        return try await database.write { connection in
            // A range scan of webhook_events_due (status, next_attempt_at) per settled status: a
            // settled event's next_attempt_at is its last attempt (or, for one never sent, its creation).
            var query: SQLiteQuery = "DELETE FROM webhook_events WHERE seq IN ("
            for (index, status) in WebhookEventStatus.settled.enumerated() {
                if index > 0 { query += " UNION ALL " }
                query += "SELECT seq FROM webhook_events WHERE status = \(unescaped: status.sqlLiteral) AND next_attempt_at < \(cutoffText)"
            }
            query += " LIMIT \(limit))"
            try connection.run(query)
            return connection.changes
        }
    }

    public func requeueWebhookEvent(id: String, merchantID: String, now: Date, expiresAt: Date, audit: AuditEntry) async throws -> WebhookEvent? {
        let (nowText, expiresText) = (Timestamp.string(now), Timestamp.string(expiresAt))
        return try await database.write { connection in
            let queued = try connection.queryOne(
                """
                UPDATE webhook_events SET status = \(unescaped: WebhookEventStatus.pending.sqlLiteral), next_attempt_at = \(nowText), last_error = NULL, delivered_at = NULL,
                    expires_at = CASE WHEN expires_at > \(expiresText) THEN expires_at ELSE \(expiresText) END
                WHERE id = \(id) AND merchant_id = \(merchantID)
                RETURNING *
                """
            ).map(Self.webhookEvent)
            if queued != nil { try connection.appendAudit(audit) }
            return queued
        }
    }

    public func resealWebhookEventBody(id: String, old: String, new: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run("UPDATE webhook_events SET payload = \(new) WHERE id = \(id) AND payload = \(old)")
            return connection.changes == 1
        }
    }

    public func webhookEvent(id: String) async throws -> WebhookEvent? {
        try await database.readOne("SELECT * FROM webhook_events WHERE id = \(id)").map(Self.webhookEvent)
    }

    public func webhookEvents(
        merchantID: String?, status: WebhookEventStatus?, beforeSequence: Int64?, limit: Int
    ) async throws -> [WebhookEvent] {
        try await database.read { connection in
            var sql: SQLiteQuery = "SELECT * FROM webhook_events WHERE 1 = 1"
            sql.and(merchantID) { "merchant_id = \($0)" }
            sql.and(status?.rawValue) { "status = \($0)" }
            sql.and(beforeSequence) { "seq < \($0)" }
            sql += " ORDER BY seq DESC LIMIT \(limit)"
            return try connection.query(sql).map(Self.webhookEvent)
        }
    }

    static func webhookEvent(_ row: SQLiteRow) throws -> WebhookEvent {
        let stored = try row.table("webhook_events")
        return WebhookEvent(
            sequence: try row.int64("seq"), id: stored.id, merchantID: try row.string("merchant_id"), type: try row.string("type"),
            body: try row.string("payload"), status: try stored.value(WebhookEventStatus.self, "status"),
            attempts: try row.int("attempts"), nextAttemptAt: try stored.instant("next_attempt_at"),
            leaseUntil: try stored.optionalInstant("lease_until"), lastError: try row.optionalString("last_error"),
            createdAt: try stored.instant("created_at"), deliveredAt: try stored.optionalInstant("delivered_at"),
            expiresAt: try stored.instant("expires_at"))
    }
}
