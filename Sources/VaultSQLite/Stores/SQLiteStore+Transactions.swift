public import Foundation
public import Vault
public import Payments

extension SQLiteStore: TransactionStore {
    public func insertTransaction(_ transaction: Transaction, audit: AuditEntry) async throws {
        try await database.write { connection in
            try Self.insert(transaction, on: connection)
            try connection.appendAudit(audit)
        }
    }

    public func insertTransaction(_ transaction: Transaction, refusingDuplicatesSince since: Date?, audit: AuditEntry) async throws {
        try await database.write { connection in
            if let since, let mac = transaction.duplicateMAC,
                let earlier = try connection.queryOne(
                    """
                    SELECT id, created_at FROM transactions
                    WHERE merchant_id = ? AND duplicate_mac = ? AND created_at >= ? AND status IN ('pending', 'approved', 'in_doubt', 'captured')
                    ORDER BY created_at DESC LIMIT 1
                    """, [transaction.merchantID, mac, Timestamp.string(since)])
            {
                throw TransactionError.notAllowed(
                    code: "duplicate_transaction",
                    message: "A \(transaction.type.rawValue) of the same amount on the same card was recorded at \(try earlier.string("created_at")) "
                        + "(\(try earlier.string("id"))); send allowDuplicate: true to process it again.")
            }
            try Self.insert(transaction, on: connection)
            try connection.appendAudit(audit)
        }
    }

    public func insertFollowUp(
        _ transaction: Transaction, check: @escaping @Sendable (Transaction, [Transaction]) throws -> Void, audit: AuditEntry
    ) async throws {
        try await database.write { connection in
            guard let parentID = transaction.parentID,
                let parent = try connection.queryOne(
                    "SELECT * FROM transactions WHERE id = ? AND merchant_id = ?", [parentID, transaction.merchantID]
                ).map(Self.transaction)
            else { throw TransactionError.notFound }
            let followUps = try connection.query("SELECT * FROM transactions WHERE parent_id = ? ORDER BY seq", [parentID]).map(Self.transaction)
            try check(parent, followUps)
            try Self.insert(transaction, on: connection)
            try connection.appendAudit(audit)
        }
    }

    public func completeTransaction(_ transaction: Transaction, parentUpdate: ParentUpdate?, audit: AuditEntry) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE transactions SET status = ?, gateway_transaction_id = ?, auth_code = ?, response_code = ?, response_text = ?,
                    avs_result = ?, cvv_result = ?, decline_code = ?, decline_category = ?, error_code = ?, updated_at = ?,
                    network_transaction_id = ?
                WHERE id = ? AND merchant_id = ?
                """,
                [transaction.status.rawValue, transaction.gatewayTransactionID, transaction.authCode, transaction.responseCode,
                 transaction.responseText, transaction.avsResult, transaction.cvvResult, transaction.declineCode, transaction.declineCategory,
                 transaction.errorCode, Timestamp.string(transaction.updatedAt), transaction.networkTransactionID, transaction.id,
                 transaction.merchantID])
            if let update = parentUpdate {
                try connection.run(
                    """
                    UPDATE transactions SET status = ?, captured_amount = captured_amount + ?, refunded_amount = refunded_amount + ?, updated_at = ?
                    WHERE id = ? AND merchant_id = ?
                    """,
                    [update.status.rawValue, update.capturedDelta, update.refundedDelta, Timestamp.string(transaction.updatedAt),
                     update.parentID, transaction.merchantID])
                if transaction.type == .void, update.status == .voided {
                    // An authorization and its capture are one transaction at the gateway: voiding
                    // either voids both, so both are recorded voided (no second void is sent).
                    try connection.run(
                        """
                        UPDATE transactions SET status = 'voided', updated_at = ?
                        WHERE merchant_id = ? AND status IN ('approved', 'captured') AND (
                            id = (SELECT parent_id FROM transactions WHERE id = ? AND merchant_id = ? AND type = 'capture')
                            OR (parent_id = ? AND type = 'capture'))
                        """,
                        [Timestamp.string(transaction.updatedAt), transaction.merchantID, update.parentID, transaction.merchantID, update.parentID])
                }
            }
            try connection.appendAudit(audit)
            try Self.enqueueOutcome(transaction, on: connection)
        }
    }

    public func attachSecureCard(transactionID: String, merchantID: String, secureCardReference: String, merchantReference: String) async throws {
        try await database.write { connection in
            try connection.run(
                "UPDATE transactions SET secure_card_id = ?, merchant_reference = ? WHERE id = ? AND merchant_id = ?",
                [secureCardReference, merchantReference, transactionID, merchantID])
        }
    }

    public func transaction(merchantID: String, id: String) async throws -> Transaction? {
        try await database.read { connection in
            try connection.queryOne("SELECT * FROM transactions WHERE merchant_id = ? AND id = ?", [merchantID, id]).map(Self.transaction)
        }
    }

    public func transactions(
        merchantID: String, filter: TransactionFilter, order: TransactionSortOrder, afterSequence: Int64?, limit: Int
    ) async throws -> [Transaction] {
        try await database.read { connection in
            var sql = "SELECT * FROM transactions WHERE merchant_id = ?"
            var arguments: [any SQLiteBindable] = [merchantID]
            Self.appendConditions(of: filter, to: &sql, arguments: &arguments)
            if let afterSequence {
                sql += order == .newestFirst ? " AND seq < ?" : " AND seq > ?"
                arguments.append(afterSequence)
            }
            sql += order == .newestFirst ? " ORDER BY seq DESC LIMIT ?" : " ORDER BY seq LIMIT ?"
            arguments.append(limit)
            return try connection.query(sql, arguments).map(Self.transaction)
        }
    }

    /// One indexed range search per period, aggregated by SQLite. The periods travel as one JSON
    /// parameter, so the statement text (and its cached plan) is the same for every request.
    public func transactionTotals(merchantID: String, periods: [StatisticsPeriod], selection: StatisticsSelection) async throws -> [StatisticsTotals] {
        guard !periods.isEmpty else { return [] }
        let bounds = "[" + periods.map { "[\"\(Timestamp.string($0.start))\",\"\(Timestamp.string($0.end))\"]" }.joined(separator: ",") + "]"
        let counted = TransactionType.allCases.filter { selection.types.contains($0) || selection.turnoverTypes.contains($0) }
        let types = "[" + counted.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
        let currency = selection.currency?.code
        return try await database.read { connection in
            var totals: [StatisticsTotals] = []
            try connection.forEachRow(
                """
                WITH periods(idx, lo, hi) AS (
                    SELECT CAST(key AS INTEGER), json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)
                )
                SELECT periods.idx AS idx, t.currency AS currency, t.type AS type, t.status AS status, count(*) AS n, sum(t.amount) AS turnover,
                    min(t.amount) AS smallest, max(t.amount) AS largest
                FROM periods JOIN transactions AS t
                    ON t.merchant_id = ? AND t.created_at >= periods.lo AND t.created_at < periods.hi
                WHERE t.type IN (SELECT value FROM json_each(?)) AND (? IS NULL OR t.currency = ?)
                GROUP BY periods.idx, t.currency, t.type, t.status
                """,
                [bounds, merchantID, types, currency, currency]
            ) { row in
                guard let status = TransactionStatus(rawValue: try row.string("status")),
                    let type = TransactionType(rawValue: try row.string("type"))
                else { return }
                totals.append(
                    StatisticsTotals(
                        periodIndex: try row.int("idx"), currency: try row.string("currency"), type: type, status: status,
                        summary: AmountSummary(
                            count: try row.int64("n"), turnover: try row.int64("turnover"), minimum: try row.int64("smallest"),
                            maximum: try row.int64("largest"))))
            }
            return totals
        }
    }

    /// The `WHERE` conditions of a transaction search, bound by position.
    package static func appendConditions(of filter: TransactionFilter, to sql: inout String, arguments: inout [any SQLiteBindable]) {
        var conditions = SQLiteConditions()
        conditions.add("status = ?", filter.status?.rawValue)
        conditions.add("type = ?", filter.type?.rawValue)
        conditions.add("schedule_id = ?", filter.scheduleID)
        conditions.add("secure_card_id = ?", filter.secureCardReference)
        conditions.add("created_at >= ?", filter.createdFrom.map(Timestamp.string))
        conditions.add("created_at < ?", filter.createdBefore.map(Timestamp.string))
        conditions.add("amount >= ?", filter.minimumAmount)
        conditions.add("amount <= ?", filter.maximumAmount)
        conditions.add("currency = ?", filter.currency?.code)
        conditions.append(to: &sql, arguments: &arguments)
        if let text = filter.text, !text.isEmpty {
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_")
            sql += " AND (id = ? OR merchant_reference LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\'"
            arguments.append(contentsOf: [text, escaped + "%", "%" + escaped + "%"] as [any SQLiteBindable])
            if text.utf8.count == 4, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                sql += " OR substr(masked_number, -4) = ?"
                arguments.append(text)
            }
            for reading in TransactionFilter.amountReadings(of: text, currency: filter.currency) {
                sql += " OR (amount = ? AND currency IN (SELECT value FROM json_each(?)))"
                arguments.append(reading.minorUnits)
                arguments.append("[" + reading.currencies.map { "\"\($0)\"" }.joined(separator: ",") + "]")
            }
            sql += ")"
        }
    }

    /// Queues `transaction.approved` / `transaction.declined` in the outcome's own transaction.
    package static func enqueueOutcome(_ transaction: Transaction, on connection: SQLiteConnection) throws {
        guard let event = try PendingWebhookEvent.outcome(of: transaction) else { return }
        try connection.enqueueWebhook(event, merchantHasCallback: connection.merchantHasCallback(transaction.merchantID))
    }

    /// Inserts `transaction`; with `resettingOpen`, one already recorded under its id (an open
    /// attempt sent again) is set back to `pending` instead.
    package static func insert(_ transaction: Transaction, on connection: SQLiteConnection, resettingOpen: Bool = false) throws {
        try connection.run(
            resettingOpen ? insertOrResetSQL : insertSQL,
            [transaction.id, transaction.merchantID, transaction.type.rawValue, transaction.status.rawValue, transaction.amount,
             transaction.currency.code, transaction.secureCardReference, transaction.merchantReference, transaction.cardType,
             transaction.maskedNumber, transaction.scheduleID, transaction.stepID, transaction.attempt, transaction.parentID,
             transaction.idempotencyKey, transaction.orderReference, transaction.description, transaction.gateway,
             transaction.gatewayTransactionID, Timestamp.string(transaction.createdAt), Timestamp.string(transaction.updatedAt),
             transaction.storedCredential?.rawValue, transaction.duplicateMAC])
    }

    private static let insertSQL = """
        INSERT INTO transactions (id, merchant_id, type, status, amount, currency, secure_card_id, merchant_reference, card_type,
            masked_number, schedule_id, step_id, attempt, parent_id, idempotency_key, order_reference, description, gateway,
            gateway_transaction_id, created_at, updated_at, stored_credential, duplicate_mac)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    private static let insertOrResetSQL = insertSQL + " ON CONFLICT (id) DO UPDATE SET status = 'pending', error_code = NULL, updated_at = excluded.updated_at"

    package static func transaction(_ row: SQLiteRow) throws -> Transaction {
        try Transaction(storedRow: row)
    }
}
