public import Foundation
public import Payments
import PostgresNIO
public import Vault

extension PostgresStore: TransactionReconciliationStore {
    /// Claims with `FOR UPDATE SKIP LOCKED` in the statement that moves the claim: servers
    /// reconciling at once each take other transactions.
    public func claimTransactionsToReconcile(inDoubtBefore: Date, pendingBefore: Date, now: Date, claimUntil: Date, limit: Int) async throws
        -> [Transaction]
    {
        let inDoubt = TransactionStatus.inDoubt.rawValue
        let pending = TransactionStatus.pending.rawValue
        return try await write { write in
            try await write.rows(
                """
                UPDATE transactions SET reconcile_after = \(Timestamp.string(claimUntil))
                WHERE seq IN (
                    SELECT seq FROM transactions
                    WHERE status IN (\(inDoubt), \(pending)) AND step_id IS NULL
                        AND (reconcile_after IS NULL OR reconcile_after <= \(Timestamp.string(now)))
                        AND updated_at <= CASE status WHEN \(pending) THEN \(Timestamp.string(pendingBefore)) ELSE \(Timestamp.string(inDoubtBefore)) END
                    ORDER BY seq LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING *
                """
            ).map(Self.transaction).sorted { $0.sequence < $1.sequence }
        }
    }

    public func settleTransaction(
        _ transaction: Transaction, expecting: TransactionStatus, parentUpdate: ParentUpdate?, audit: AuditEntry, notices: OutcomeNotices
    ) async throws -> Bool {
        try await write { write in
            // The row lock holds off a late answer (or another settlement) until this one commits.
            let stored = try await write.row(
                "SELECT status FROM transactions WHERE id = \(transaction.id) AND merchant_id = \(transaction.merchantID) FOR UPDATE")
            guard try stored?.string("status") == expecting.rawValue else { return false }
            try await Self.writeCompletion(transaction, parentUpdate: parentUpdate, audit: audit, notices: notices, on: write)
            return true
        }
    }

    public func unsettledTransactionCounts(merchantID: String?, pendingBefore: Date) async throws -> UnsettledTransactionCounts {
        let inDoubt = TransactionStatus.inDoubt.rawValue
        let pending = TransactionStatus.pending.rawValue
        let review = TransactionStatus.needsReview.rawValue
        var query: PostgresQuery = """
            SELECT count(*) FILTER (WHERE status = \(review)) AS review,
                count(*) FILTER (WHERE status = \(inDoubt) OR (status = \(pending) AND updated_at <= \(Timestamp.string(pendingBefore)))) AS doubt
            FROM transactions WHERE step_id IS NULL AND status IN (\(review), \(inDoubt), \(pending))
            """
        if let merchantID { query.append(" AND merchant_id = ", merchantID) }
        let counts = query
        return try await billingRead { connection in
            let row = try await connection.row(counts)
            return UnsettledTransactionCounts(inDoubt: try row?.int("doubt") ?? 0, needsReview: try row?.int("review") ?? 0)
        }
    }
}
