import Foundation
import Vault

/// The claim every outbox table of the store shares (`email_receipts`, `webhook_events`): a row is
/// due when it is still pending (`pending`, that table's status of the same name) (not given up), its `next_attempt_at` (its backoff) has come, and
/// no live lease holds it; the deliverer leases up to `limit` of them, oldest due first, in one
/// statement of the single writer, so no two deliverers receive the same row.
enum SQLiteLeasedOutbox {
    /// Leases the due rows of `table` (aliased `o`) until `leaseUntil` and returns them in no
    /// particular order. `join` and `eligible` narrow the rows further (`eligible` starts with `AND`).
    /// - Throws: `SQLiteError`.
    static func claimDue(
        _ table: String, pending: some StatusName, join: String = "", eligible: String = "", now: Date, leaseUntil: Date, limit: Int, in connection: SQLiteConnection
    ) throws -> [SQLiteRow] {
        let (nowText, leaseText) = (Timestamp.string(now), Timestamp.string(leaseUntil))
        return try connection.query(
            """
            UPDATE \(unescaped: table) SET lease_until = \(leaseText)
            WHERE seq IN (
                SELECT o.seq FROM \(unescaped: table) o \(unescaped: join)
                WHERE o.status = \(unescaped: pending.sqlLiteral) AND o.next_attempt_at <= \(nowText) AND (o.lease_until IS NULL OR o.lease_until <= \(nowText))
                    \(unescaped: eligible)
                ORDER BY o.next_attempt_at, o.seq
                LIMIT \(limit))
            RETURNING *
            """)
    }
}
