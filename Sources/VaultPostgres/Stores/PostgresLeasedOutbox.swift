import Foundation
import PostgresNIO
import Vault

/// The claim every outbox table of the store shares (`email_receipts`, `webhook_events`): a row is
/// due when it is still pending (`pending`, that table's status of the same name) (not given up), its `next_attempt_at` (its backoff) has come, and
/// no live lease holds it; the deliverer leases up to `limit` of them, oldest due first, with
/// `FOR UPDATE SKIP LOCKED`, so deliverers on several servers claim at once and never receive the
/// same row (a row another claimer holds is skipped; one it already leased fails the re-checked
/// lease condition).
enum PostgresLeasedOutbox {
    /// Leases the due rows of `table` (aliased `o`) until `leaseUntil` and returns them in no
    /// particular order. `join` and `eligible` narrow the rows further (`eligible` starts with `AND`).
    /// - Throws: server errors.
    static func claimDue(
        _ table: String, pending: some StatusName, join: String = "", eligible: String = "", now: Date, leaseUntil: Date, limit: Int, in transaction: PostgresWrite
    ) async throws -> [PostgresRowReader] {
        let (nowText, leaseText) = (Timestamp.string(now), Timestamp.string(leaseUntil))
        return try await transaction.rows(
            """
            UPDATE \(unescaped: table) SET lease_until = \(leaseText)
            WHERE seq IN (
                SELECT o.seq FROM \(unescaped: table) o \(unescaped: join)
                WHERE o.status = \(unescaped: pending.sqlLiteral) AND o.next_attempt_at <= \(nowText) AND (o.lease_until IS NULL OR o.lease_until <= \(nowText))
                    \(unescaped: eligible)
                ORDER BY o.next_attempt_at, o.seq
                LIMIT \(limit)
                FOR UPDATE OF o SKIP LOCKED)
            RETURNING *
            """)
    }
}
