public import Foundation
public import Payments
public import Vault

extension SQLiteStore: TransactionReconciliationStore {
    public func claimTransactionsToReconcile(inDoubtBefore: Date, pendingBefore: Date, now: Date, claimUntil: Date, limit: Int) async throws
        -> [Transaction]
    {
        let inDoubt = TransactionStatus.inDoubt.rawValue
        let pending = TransactionStatus.pending.rawValue
        return try await database.write { connection in
            // One writer: the read and the claim are one write transaction, so two servers (or a
            // server and a run) never claim the same transaction.
            let rows = try connection.query(
                """
                SELECT * FROM transactions
                WHERE status IN (\(inDoubt), \(pending)) AND step_id IS NULL
                    AND (reconcile_after IS NULL OR reconcile_after <= \(Timestamp.string(now)))
                    AND updated_at <= CASE status WHEN \(pending) THEN \(Timestamp.string(pendingBefore)) ELSE \(Timestamp.string(inDoubtBefore)) END
                ORDER BY seq LIMIT \(limit)
                """)
            let claimed = try rows.map(Self.transaction)
            for transaction in claimed {
                try connection.run("UPDATE transactions SET reconcile_after = \(Timestamp.string(claimUntil)) WHERE id = \(transaction.id)")
            }
            return claimed
        }
    }

    public func settleTransaction(
        _ transaction: Transaction, expecting: TransactionStatus, parentUpdate: ParentUpdate?, audit: AuditEntry, notices: OutcomeNotices
    ) async throws -> Bool {
        try await database.write { connection in
            let stored = try connection.queryOne(
                "SELECT status FROM transactions WHERE id = \(transaction.id) AND merchant_id = \(transaction.merchantID)")
            guard try stored?.string("status") == expecting.rawValue else { return false }
            try Self.writeCompletion(transaction, parentUpdate: parentUpdate, audit: audit, notices: notices, on: connection)
            return true
        }
    }

    public func unsettledTransactionCounts(merchantID: String?, pendingBefore: Date) async throws -> UnsettledTransactionCounts {
        let inDoubt = TransactionStatus.inDoubt.rawValue
        let pending = TransactionStatus.pending.rawValue
        let review = TransactionStatus.needsReview.rawValue
        return try await database.read { connection in
            var sql: SQLiteQuery = """
                SELECT count(*) FILTER (WHERE status = \(review)) AS review,
                    count(*) FILTER (WHERE status = \(inDoubt) OR (status = \(pending) AND updated_at <= \(Timestamp.string(pendingBefore)))) AS doubt
                FROM transactions WHERE step_id IS NULL AND status IN (\(review), \(inDoubt), \(pending))
                """
            sql.and(merchantID) { "merchant_id = \($0)" }
            let row = try connection.queryOne(sql)
            return UnsettledTransactionCounts(inDoubt: try row?.int("doubt") ?? 0, needsReview: try row?.int("review") ?? 0)
        }
    }
}
