public import Foundation
public import Vault

extension SQLiteConnection {
    /// Queues a prepared e-mail receipt inside the caller's transaction, so it commits or rolls
    /// back with the outcome it reports; a transaction that already has one keeps it.
    /// - Throws: `SQLiteError` (including a foreign-key failure for an unknown merchant).
    public func enqueueReceipt(_ receipt: PendingReceipt) throws {
        try run(
            """
            INSERT INTO email_receipts (id, merchant_id, transaction_id, event, recipient, masked_recipient, merchant_name, time_zone,
                occurred_at, body, status, attempts, next_attempt_at, created_at, binding)
            VALUES (\(receipt.id), \(receipt.merchantID), \(receipt.transactionID), \(receipt.event.rawValue), \(receipt.recipient),
                \(receipt.maskedRecipient), \(receipt.merchantName), \(receipt.timeZone), \(receipt.occurredAt), \(receipt.body), \(unescaped: ReceiptStatus.pending.sqlLiteral), 0,
                \(receipt.createdAt), \(receipt.createdAt), \(receipt.binding))
            ON CONFLICT (transaction_id) DO NOTHING
            """)
    }
}

extension SQLiteStore: ReceiptStore {
    public func claimReceipts(now: Date, leaseUntil: Date, limit: Int) async throws -> [EmailReceipt] {
        let receipts = try await database.write { connection in
            try SQLiteLeasedOutbox.claimDue("email_receipts", pending: ReceiptStatus.pending, now: now, leaseUntil: leaseUntil, limit: limit, in: connection).map(Self.emailReceipt)
        }
        return receipts.sorted { ($0.nextAttemptAt, $0.sequence) < ($1.nextAttemptAt, $1.sequence) }
    }

    public func markReceiptSent(id: String, at: Date) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE email_receipts SET status = \(unescaped: ReceiptStatus.sent.sqlLiteral), sent_at = \(Timestamp.string(at)), lease_until = NULL
                WHERE id = \(id) AND status = \(unescaped: ReceiptStatus.pending.sqlLiteral)
                """)
        }
    }

    public func markReceiptFailed(id: String, error: String, retryAt: Date?) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE email_receipts SET attempts = attempts + 1, status = \(retryAt == nil ? "failed" : "pending"),
                    next_attempt_at = coalesce(\(retryAt.map(Timestamp.string)), next_attempt_at), last_error = \(String(error.prefix(200))),
                    lease_until = NULL
                WHERE id = \(id) AND status = \(unescaped: ReceiptStatus.pending.sqlLiteral)
                """)
        }
    }

    public func receipts(merchantID: String?, status: ReceiptStatus?, beforeSequence: Int64?, limit: Int) async throws -> [EmailReceipt] {
        try await database.read { connection in
            var sql: SQLiteQuery = "SELECT * FROM email_receipts WHERE 1 = 1"
            sql.and(merchantID) { "merchant_id = \($0)" }
            sql.and(status?.rawValue) { "status = \($0)" }
            sql.and(beforeSequence) { "seq < \($0)" }
            sql += " ORDER BY seq DESC LIMIT \(limit)"
            return try connection.query(sql).map(Self.emailReceipt)
        }
    }

    public func resealReceiptRecipient(id: String, old: String, new: String) async throws -> Bool {
        try await database.write { connection in
            try connection.run("UPDATE email_receipts SET recipient = \(new) WHERE id = \(id) AND recipient = \(old)")
            return connection.changes == 1
        }
    }

    public func purgeSettledReceipts(queuedBefore cutoff: Date) async throws -> Int {
        try await database.write { connection in
            try connection.run(
                "DELETE FROM email_receipts WHERE status IN (\(unescaped: ReceiptStatus.settled.sqlLiterals)) AND created_at < \(Timestamp.string(cutoff))")
            return connection.changes
        }
    }

    public func pendingReceiptCount() async throws -> Int {
        try await database.read { connection in
            try connection.queryOne("SELECT count(*) AS n FROM email_receipts WHERE status = \(unescaped: ReceiptStatus.pending.sqlLiteral)")?.int("n") ?? 0
        }
    }

    public func receiptsWithoutBinding(limit: Int) async throws -> [EmailReceipt] {
        try await database.read { connection in
            try connection.query("SELECT * FROM email_receipts WHERE binding IS NULL ORDER BY seq LIMIT \(limit)").map(Self.emailReceipt)
        }
    }

    public func bindReceipts(_ bindings: [(id: String, binding: [UInt8])]) async throws {
        guard !bindings.isEmpty else { return }
        try await database.write { connection in
            for (id, binding) in bindings {
                try connection.run("UPDATE email_receipts SET binding = \(binding) WHERE id = \(id) AND binding IS NULL")
            }
        }
    }

    static func emailReceipt(_ row: SQLiteRow) throws -> EmailReceipt {
        let stored = try row.table("email_receipts")
        return EmailReceipt(
            sequence: try row.int64("seq"), id: stored.id, merchantID: try row.string("merchant_id"), transactionID: try row.string("transaction_id"),
            event: try stored.value(ReceiptEvent.self, "event"), recipient: try row.string("recipient"),
            maskedRecipient: try row.string("masked_recipient"), merchantName: try row.string("merchant_name"), timeZone: try row.string("time_zone"),
            occurredAt: try stored.instant("occurred_at"), body: try row.string("body"), status: try stored.value(ReceiptStatus.self, "status"),
            attempts: try row.int("attempts"), nextAttemptAt: try stored.instant("next_attempt_at"), leaseUntil: try stored.optionalInstant("lease_until"),
            lastError: try row.optionalString("last_error"), createdAt: try stored.instant("created_at"), sentAt: try stored.optionalInstant("sent_at"),
            binding: try row.optionalBlob("binding"))
    }
}
