public import Foundation
import PostgresNIO
public import Vault

extension PostgresStore: WebhookStore {
    /// Leases due events of active merchants with a callback URL with `FOR UPDATE SKIP LOCKED`
    /// (``PostgresLeasedOutbox``): deliverers on several servers claim at once and never receive the
    /// same event.
    public func claimWebhookEvents(now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookEvent] {
        let events = try await write { transaction in
            try await PostgresLeasedOutbox.claimDue(
                "webhook_events", pending: WebhookEventStatus.pending, join: "JOIN merchants m ON m.id = o.merchant_id", eligible: "AND m.status = " + Merchant.Status.active.sqlLiteral + " AND m.callback_url IS NOT NULL",
                now: now, leaseUntil: leaseUntil, limit: limit, in: transaction
            ).map(Self.webhookEvent)
        }
        return events.sorted { ($0.nextAttemptAt, $0.sequence) < ($1.nextAttemptAt, $1.sequence) }
    }

    public func markWebhookDelivered(id: String, at: Date) async throws {
        let stamp = Timestamp.string(at)
        try await write { transaction in
            try await transaction.run(
                """
                UPDATE webhook_events SET status = \(unescaped: WebhookEventStatus.delivered.sqlLiteral), attempts = attempts + 1, delivered_at = \(stamp), lease_until = NULL,
                    last_error = NULL
                WHERE id = \(id) AND status = \(unescaped: WebhookEventStatus.pending.sqlLiteral)
                """)
        }
    }

    public func markWebhookFailed(id: String, error: String, nextAttemptAt: Date, countsAsAttempt: Bool) async throws {
        let (increment, next, reason) = (countsAsAttempt ? 1 : 0, Timestamp.string(nextAttemptAt), String(error.prefix(200)))
        try await write { transaction in
            try await transaction.run(
                """
                UPDATE webhook_events SET attempts = attempts + \(increment), next_attempt_at = \(next), last_error = \(reason), lease_until = NULL
                WHERE id = \(id) AND status = \(unescaped: WebhookEventStatus.pending.sqlLiteral)
                """)
        }
    }

    public func expireWebhookEvents(now: Date) async throws -> Int {
        let nowText = Timestamp.string(now)
        return try await write { transaction in
            try await transaction.run(
                """
                UPDATE webhook_events SET status = \(unescaped: WebhookEventStatus.expired.sqlLiteral)
                WHERE status = \(unescaped: WebhookEventStatus.pending.sqlLiteral) AND expires_at <= \(nowText) AND (lease_until IS NULL OR lease_until <= \(nowText))
                RETURNING 1
                """)
        }
    }

    public func purgeWebhookEvents(settledBefore cutoff: Date, limit: Int) async throws -> Int {
        let cutoffText = Timestamp.string(cutoff)
        return try await write { transaction in
            try await transaction.run(
                """
                DELETE FROM webhook_events WHERE seq IN (
                    SELECT seq FROM webhook_events WHERE status IN (\(unescaped: WebhookEventStatus.settled.sqlLiterals)) AND next_attempt_at < \(cutoffText)
                    LIMIT \(limit))
                RETURNING 1
                """)
        }
    }

    public func requeueWebhookEvent(id: String, merchantID: String, now: Date, expiresAt: Date, audit: AuditEntry) async throws -> WebhookEvent? {
        let (nowText, expiresText) = (Timestamp.string(now), Timestamp.string(expiresAt))
        return try await write { transaction in
            let queued = try await transaction.row(
                """
                UPDATE webhook_events SET status = \(unescaped: WebhookEventStatus.pending.sqlLiteral), next_attempt_at = \(nowText), last_error = NULL, delivered_at = NULL,
                    expires_at = GREATEST(expires_at, \(expiresText))
                WHERE id = \(id) AND merchant_id = \(merchantID)
                RETURNING *
                """
            ).map(Self.webhookEvent)
            if queued != nil { try await transaction.appendAudit(audit) }
            return queued
        }
    }

    public func resealWebhookEventBody(id: String, old: String, new: String) async throws -> Bool {
        try await write { write in
            try await write.run("UPDATE webhook_events SET payload = \(new) WHERE id = \(id) AND payload = \(old) RETURNING seq") == 1
        }
    }

    public func webhookEvent(id: String) async throws -> WebhookEvent? {
        try await read { connection in
            try await connection.row("SELECT * FROM webhook_events WHERE id = \(id)", logger: logger).map(Self.webhookEvent)
        }
    }

    public func webhookEvents(merchantID: String?, status: WebhookEventStatus?, beforeSequence: Int64?, limit: Int) async throws -> [WebhookEvent] {
        var builder = PostgresQueryBuilder("SELECT * FROM webhook_events WHERE true")
        builder.and({ "merchant_id = \($0)" }, merchantID)
        builder.and({ "status = \($0)" }, status?.rawValue)
        builder.and({ "seq < \($0)" }, beforeSequence)
        builder.append(" ORDER BY seq DESC LIMIT \(builder.bind(limit))")
        let query = builder.query
        return try await read { connection in
            try await connection.rows(query, logger: logger).map(Self.webhookEvent)
        }
    }

    static func webhookEvent(_ row: PostgresRowReader) throws -> WebhookEvent {
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
