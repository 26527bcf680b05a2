public import Foundation
import PostgresNIO
public import Vault

extension PostgresWrite {
    /// Queues prepared e-mail receipts inside this transaction in one statement, so they commit or
    /// roll back with the outcomes they report (as `SQLiteConnection.enqueueReceipt`); a
    /// transaction that already has one keeps it.
    /// - Throws: `PostgresStoreError.foreignKeyViolation` for an unknown merchant; server errors.
    public func enqueueReceipts(_ receipts: [PendingReceipt]) async throws {
        guard !receipts.isEmpty else { return }
        var rows = PostgresRowSet([
            ("id", "text"), ("merchant_id", "text"), ("transaction_id", "text"), ("event", "text"), ("recipient", "text"),
            ("masked_recipient", "text"), ("merchant_name", "text"), ("time_zone", "text"), ("occurred_at", "text"), ("body", "text"),
            ("created_at", "text"), ("binding", "bytea"),
        ])
        for receipt in receipts {
            rows.append([
                receipt.id, receipt.merchantID, receipt.transactionID, receipt.event.rawValue, receipt.recipient, receipt.maskedRecipient,
                receipt.merchantName, receipt.timeZone, receipt.occurredAt, receipt.body, receipt.createdAt, receipt.binding.map { Encoding.hex($0) },
            ])
        }
        var insert: PostgresQuery = """
            INSERT INTO email_receipts (id, merchant_id, transaction_id, event, recipient, masked_recipient, merchant_name, time_zone,
                occurred_at, body, status, attempts, next_attempt_at, created_at, binding)
            SELECT r.id, r.merchant_id, r.transaction_id, r.event, r.recipient, r.masked_recipient, r.merchant_name, r.time_zone,
                r.occurred_at, r.body, \(unescaped: ReceiptStatus.pending.sqlLiteral), 0, r.created_at, r.created_at, r.binding FROM
            """
        rows.appendSelect(to: &insert)
        insert.sql += " AS r ORDER BY r.ord ON CONFLICT (transaction_id) DO NOTHING"
        try await run(insert)
    }
}

extension PostgresStore: ReceiptStore {
    /// Leases due receipts with `FOR UPDATE SKIP LOCKED` (``PostgresLeasedOutbox``): deliverers on
    /// several servers claim at once and never receive the same receipt.
    public func claimReceipts(now: Date, leaseUntil: Date, limit: Int) async throws -> [EmailReceipt] {
        let receipts = try await write { transaction in
            try await PostgresLeasedOutbox.claimDue("email_receipts", pending: ReceiptStatus.pending, now: now, leaseUntil: leaseUntil, limit: limit, in: transaction)
                .map(Self.emailReceipt)
        }
        return receipts.sorted { ($0.nextAttemptAt, $0.sequence) < ($1.nextAttemptAt, $1.sequence) }
    }

    public func markReceiptSent(id: String, at: Date) async throws {
        let stamp = Timestamp.string(at)
        try await write { transaction in
            try await transaction.run(
                "UPDATE email_receipts SET status = \(unescaped: ReceiptStatus.sent.sqlLiteral), sent_at = \(stamp), lease_until = NULL WHERE id = \(id) AND status = \(unescaped: ReceiptStatus.pending.sqlLiteral)")
        }
    }

    public func markReceiptFailed(id: String, error: String, retryAt: Date?) async throws {
        let (status, next, reason) = (retryAt == nil ? "failed" : "pending", Timestamp.optional(retryAt), String(error.prefix(200)))
        try await write { transaction in
            try await transaction.run(
                """
                UPDATE email_receipts SET attempts = attempts + 1, status = \(status), next_attempt_at = coalesce(\(next), next_attempt_at),
                    last_error = \(reason), lease_until = NULL
                WHERE id = \(id) AND status = \(unescaped: ReceiptStatus.pending.sqlLiteral)
                """)
        }
    }

    public func receipts(merchantID: String?, status: ReceiptStatus?, beforeSequence: Int64?, limit: Int) async throws -> [EmailReceipt] {
        var builder = PostgresQueryBuilder("SELECT * FROM email_receipts WHERE true")
        builder.and({ "merchant_id = \($0)" }, merchantID)
        builder.and({ "status = \($0)" }, status?.rawValue)
        builder.and({ "seq < \($0)" }, beforeSequence)
        builder.append(" ORDER BY seq DESC LIMIT \(builder.bind(limit))")
        let query = builder.query
        return try await read { connection in
            try await connection.rows(query, logger: logger).map(Self.emailReceipt)
        }
    }

    public func resealReceiptRecipient(id: String, old: String, new: String) async throws -> Bool {
        try await write { write in
            try await write.run("UPDATE email_receipts SET recipient = \(new) WHERE id = \(id) AND recipient = \(old) RETURNING seq") == 1
        }
    }

    public func purgeSettledReceipts(queuedBefore cutoff: Date) async throws -> Int {
        let stamp = Timestamp.string(cutoff)
        return try await write { write in
            try await write.run("DELETE FROM email_receipts WHERE status IN (\(unescaped: ReceiptStatus.settled.sqlLiterals)) AND created_at < \(stamp) RETURNING seq")
        }
    }

    public func pendingReceiptCount() async throws -> Int {
        try await read { connection in
            try await connection.rows("SELECT count(*) AS n FROM email_receipts WHERE status = \(unescaped: ReceiptStatus.pending.sqlLiteral)", logger: logger).first?.int("n") ?? 0
        }
    }

    public func receiptsWithoutBinding(limit: Int) async throws -> [EmailReceipt] {
        try await read { connection in
            try await connection.rows(
                "SELECT * FROM email_receipts WHERE binding IS NULL ORDER BY seq LIMIT \(limit)", logger: logger
            ).map(Self.emailReceipt)
        }
    }

    public func bindReceipts(_ bindings: [(id: String, binding: [UInt8])]) async throws {
        guard !bindings.isEmpty else { return }
        var rows = PostgresRowSet([("id", "text"), ("binding", "bytea")])
        for (id, binding) in bindings { rows.append([id, Encoding.hex(binding)]) }
        var update: PostgresQuery = "UPDATE email_receipts AS e SET binding = r.binding FROM "
        rows.appendSelect(to: &update)
        update.sql += " AS r WHERE e.id = r.id AND e.binding IS NULL"
        try await write { write in try await write.run(update) }
    }

    static func emailReceipt(_ row: PostgresRowReader) throws -> EmailReceipt {
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
