public import Foundation
public import Payments
import PostgresNIO
public import Vault

extension PostgresStore: TransactionStore {
    public func insertTransaction(_ transaction: Transaction, audit: AuditEntry) async throws {
        try await write { write in
            try await Self.insert(transaction, on: write)
            try await write.appendAudit(PendingAuditEvent(audit))
        }
    }

    public func insertTransaction(_ transaction: Transaction, refusingDuplicatesSince since: Date?, audit: AuditEntry) async throws {
        try await write { write in
            if let since, let mac = transaction.duplicateMAC {
                // Two identical requests at once on two servers: the second waits for the first's
                // commit on this lock (per merchant and MAC), then sees its row.
                try await write.run("SELECT pg_advisory_xact_lock(hashtextextended(\(transaction.merchantID) || encode(\(bytea(mac)), 'hex'), 15))")
                if let earlier = try await write.row(
                    """
                    SELECT id, created_at FROM transactions
                    WHERE merchant_id = \(transaction.merchantID) AND duplicate_mac = \(bytea(mac)) AND created_at >= \(Timestamp.string(since))
                    AND status IN (\(unescaped: TransactionStatus.countedAsDuplicates.sqlLiterals))
                    ORDER BY created_at DESC LIMIT 1
                    """)
                {
                    throw TransactionError.notAllowed(
                        code: "duplicate_transaction",
                        message: "A \(transaction.type.rawValue) of the same amount on the same card was recorded at \(try earlier.string("created_at")) "
                            + "(\(try earlier.string("id"))); send allowDuplicate: true to process it again.")
                }
            }
            try await Self.insert(transaction, on: write)
            try await write.appendAudit(PendingAuditEvent(audit))
        }
    }

    public func insertFollowUp(
        _ transaction: Transaction, check: @escaping @Sendable (Transaction, [Transaction]) throws -> Void, audit: AuditEntry
    ) async throws {
        try await write { write in
            // The original's row lock serializes follow-ups of one transaction across servers, so two
            // refunds at once cannot both pass `check`.
            guard let parentID = transaction.parentID,
                let parent = try await write.row(
                    "SELECT * FROM transactions WHERE id = \(parentID) AND merchant_id = \(transaction.merchantID) FOR UPDATE"
                ).map(Self.transaction)
            else { throw TransactionError.notFound }
            let followUps = try await write.rows("SELECT * FROM transactions WHERE parent_id = \(parentID) ORDER BY seq").map(Self.transaction)
            try check(parent, followUps)
            try await Self.insert(transaction, on: write)
            try await write.appendAudit(PendingAuditEvent(audit))
        }
    }

    public func completeTransaction(_ transaction: Transaction, parentUpdate: ParentUpdate?, audit: AuditEntry, notices: OutcomeNotices) async throws {
        try await write { write in
            try await Self.writeCompletion(transaction, parentUpdate: parentUpdate, audit: audit, notices: notices, on: write)
        }
    }

    /// Writes a transaction's outcome, its original's change, its audit event and the `notices` the
    /// domain built for it (``OutcomeNotices/outcome(of:parties:now:)``), stored as given.
    static func writeCompletion(
        _ transaction: Transaction, parentUpdate: ParentUpdate?, audit: AuditEntry, notices: OutcomeNotices, on write: PostgresWrite
    ) async throws {
        let stamp = Timestamp.string(transaction.updatedAt)
        try await Self.writeOutcome(transaction, on: write, requiringMerchant: true)
        if let update = parentUpdate {
            // The status is derived from the amounts in this statement (ParentUpdate.assignmentsSQL),
            // never from a copy read before the write; the row lock makes concurrent updates of
            // one original apply one after the other, each to the row as the last one left it.
            try await write.run(
                """
                UPDATE transactions SET \(unescaped: update.assignmentsSQL), updated_at = \(stamp)
                WHERE id = \(update.parentID) AND merchant_id = \(transaction.merchantID)
                """)
            if transaction.type == .void, update.change == .void {
                // An authorization and its capture are one transaction at the gateway: voiding
                // either voids both, so both are recorded voided (no second void is sent).
                try await write.run(
                    """
                    UPDATE transactions SET status = \(unescaped: TransactionStatus.voided.sqlLiteral), updated_at = \(stamp)
                    WHERE merchant_id = \(transaction.merchantID) AND status IN (\(unescaped: TransactionStatus.voidedTogether.sqlLiterals)) AND (
                        id = (SELECT parent_id FROM transactions WHERE id = \(update.parentID) AND merchant_id = \(transaction.merchantID)
                              AND type = \(unescaped: TransactionType.capture.sqlLiteral))
                        OR (parent_id = \(update.parentID) AND type = \(unescaped: TransactionType.capture.sqlLiteral)))
                    """)
            }
        }
        try await write.appendAudit(PendingAuditEvent(audit))
        if !notices.webhooks.isEmpty {
            let hasCallback = try await write.merchantHasCallback(transaction.merchantID)
            for event in notices.webhooks { try await write.enqueueWebhook(event, merchantHasCallback: hasCallback) }
        }
        try await write.enqueueReceipts(notices.receipts)
    }

    public func attachSecureCard(
        transactionID: String, merchantID: String, secureCardReference: String, merchantReference: String, binding: [UInt8]
    ) async throws {
        try await write { write in
            _ = try await write.run(
                """
                UPDATE transactions SET secure_card_id = \(secureCardReference), merchant_reference = \(merchantReference),
                    binding = \(bytea(binding))
                WHERE id = \(transactionID) AND merchant_id = \(merchantID)
                """)
        }
    }

    public func transaction(merchantID: String, id: String) async throws -> Transaction? {
        try await billingRead { connection in
            try await connection.row("SELECT * FROM transactions WHERE merchant_id = \(merchantID) AND id = \(id)").map(Self.transaction)
        }
    }

    public func transactions(
        merchantID: String, filter: TransactionFilter, order: TransactionSortOrder, afterSequence: Int64?, limit: Int
    ) async throws -> [Transaction] {
        var query: PostgresQuery = "SELECT * FROM transactions WHERE merchant_id = \(merchantID)"
        Self.appendConditions(of: filter, merchantID: merchantID, to: &query)
        if let afterSequence {
            query.append(order == .newestFirst ? " AND seq < " : " AND seq > ", afterSequence)
        }
        if let stop = filter.windowStop {
            query.append(order == .newestFirst ? " AND seq > " : " AND seq < ", stop)
        }
        query.append(order == .newestFirst ? " ORDER BY seq DESC LIMIT " : " ORDER BY seq LIMIT ", limit)
        let search = query
        return try await billingRead { connection in
            try await connection.rows(search).map(Self.transaction)
        }
    }

    public func transactionSequence(merchantID: String, order: TransactionSortOrder, afterSequence: Int64?, offset: Int) async throws -> Int64? {
        var query: PostgresQuery = "SELECT seq FROM transactions WHERE merchant_id = \(merchantID)"
        if let afterSequence {
            query.append(order == .newestFirst ? " AND seq < " : " AND seq > ", afterSequence)
        }
        query.append(order == .newestFirst ? " ORDER BY seq DESC LIMIT 1 OFFSET " : " ORDER BY seq LIMIT 1 OFFSET ", offset)
        let walk = query
        return try await billingRead { connection in
            try await connection.row(walk).map { try $0.int64("seq") }
        }
    }

    /// One indexed range search per period, aggregated by PostgreSQL; the periods travel as two
    /// arrays (`unnest ... WITH ORDINALITY`), so the statement text is the same for every request.
    public func transactionTotals(merchantID: String, periods: [StatisticsPeriod], selection: StatisticsSelection) async throws -> [StatisticsTotals] {
        guard !periods.isEmpty else { return [] }
        let starts = periods.map { Timestamp.string($0.start) }
        let ends = periods.map { Timestamp.string($0.end) }
        let types = TransactionType.allCases.filter { selection.types.contains($0) || selection.turnoverTypes.contains($0) }.map(\.rawValue)
        let currency = selection.currency?.code
        return try await billingRead { connection in
            var totals: [StatisticsTotals] = []
            for row in try await connection.rows(
                """
                SELECT p.idx - 1 AS idx, t.currency AS currency, t.type AS type, t.status AS status, count(*) AS n,
                    sum(t.amount)::bigint AS turnover, min(t.amount) AS smallest, max(t.amount) AS largest,
                    sum(t.captured_amount)::bigint AS captured, sum(t.refunded_amount)::bigint AS refunded,
                    sum(t.voided_amount)::bigint AS voided
                FROM unnest(\(starts)::text[], \(ends)::text[]) WITH ORDINALITY AS p(lo, hi, idx)
                JOIN transactions AS t ON t.merchant_id = \(merchantID) AND t.created_at >= p.lo AND t.created_at < p.hi
                WHERE t.type = ANY(\(types)::text[]) AND (\(currency)::text IS NULL OR t.currency = \(currency))
                GROUP BY p.idx, t.currency, t.type, t.status
                """)
            {
                guard let status = TransactionStatus(rawValue: try row.string("status")),
                    let type = TransactionType(rawValue: try row.string("type"))
                else { continue }
                totals.append(
                    StatisticsTotals(
                        periodIndex: try row.int("idx"), currency: try row.string("currency"), type: type, status: status,
                        summary: AmountSummary(
                            count: try row.int64("n"), turnover: try row.int64("turnover"), minimum: try row.int64("smallest"),
                            maximum: try row.int64("largest")),
                        followUps: FollowUpAmounts(
                            captured: try row.int64("captured"), refunded: try row.int64("refunded"), voided: try row.int64("voided"))))
            }
            return totals
        }
    }

    /// The `WHERE` conditions of a transaction search, as the SQLite store writes them (LIKE ignoring
    /// ASCII case is `ILIKE` here; the card's last four digits are `right(masked_number, 4)`).
    static func appendConditions(of filter: TransactionFilter, merchantID: String, to query: inout PostgresQuery) {
        if let status = filter.status { query.append(" AND status = ", status.rawValue) }
        if let type = filter.type { query.append(" AND type = ", type.rawValue) }
        if let scheduleID = filter.scheduleID { query.append(" AND schedule_id = ", scheduleID) }
        if let card = filter.secureCardReference { query.append(" AND secure_card_id = ", card) }
        if let from = filter.createdFrom { query.append(" AND created_at >= ", Timestamp.string(from)) }
        if let before = filter.createdBefore { query.append(" AND created_at < ", Timestamp.string(before)) }
        if let minimum = filter.minimumAmount { query.append(" AND amount >= ", minimum) }
        if let maximum = filter.maximumAmount { query.append(" AND amount <= ", maximum) }
        if let currency = filter.currency { query.append(" AND currency = ", currency.code) }
        guard let text = filter.text, !text.isEmpty else { return }
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        query.append(" AND (id = ", text)
        query.append(" OR merchant_reference ILIKE ", escaped + "%", " ESCAPE '\\'")
        query.append(" OR description ILIKE ", "%" + escaped + "%", " ESCAPE '\\'")
        if text.utf8.count == 4, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            query.append(" OR right(masked_number, 4) = ", text)
        }
        for reading in TransactionFilter.amountReadings(of: text, currency: filter.currency) {
            query.append(" OR (amount = ", reading.minorUnits)
            query.append(" AND currency = ANY(", reading.currencies, "::text[]))")
        }
        if let macs = filter.textNameMACs, !macs.isEmpty {
            // The cards of the merchant whose holder name has every word (the blind index), looked up once.
            query.append(" OR secure_card_id IN (SELECT secure_card_id FROM secure_card_names WHERE merchant_id = ", merchantID)
            for (index, mac) in macs.enumerated() {
                query.append(index == 0 ? " AND token_mac IN (" : ", ", bytea(mac))
            }
            query.append(") GROUP BY secure_card_id HAVING count(*) = ", macs.count, ")")
        }
        if let day = filter.textDay {
            query.append(" OR (created_at >= ", Timestamp.string(day.lowerBound))
            query.append(" AND created_at < ", Timestamp.string(day.upperBound), ")")
        }
        query.sql += ")"
    }

    /// Inserts `transaction`; with `resettingOpen`, one already recorded under its id (an open
    /// attempt sent again) is set back to `pending` instead.
    static func insert(_ transaction: Transaction, on sql: some BillingSQL, resettingOpen: Bool = false) async throws {
        var query: PostgresQuery = """
            INSERT INTO transactions (id, merchant_id, type, status, amount, currency, secure_card_id, merchant_reference, card_type,
                masked_number, schedule_id, step_id, attempt, parent_id, idempotency_key, order_reference, description, gateway,
                gateway_transaction_id, created_at, updated_at, stored_credential, duplicate_mac, binding, receipt_address)
            VALUES (\(transaction.id), \(transaction.merchantID), \(transaction.type.rawValue), \(transaction.status.rawValue),
                \(transaction.amount), \(transaction.currency.code), \(transaction.secureCardReference), \(transaction.merchantReference),
                \(transaction.cardType), \(transaction.maskedNumber), \(transaction.scheduleID), \(transaction.stepID),
                \(transaction.attempt), \(transaction.parentID), \(transaction.idempotencyKey), \(transaction.orderReference),
                \(transaction.description), \(transaction.gateway), \(transaction.gatewayTransactionID),
                \(Timestamp.string(transaction.createdAt)), \(Timestamp.string(transaction.updatedAt)),
                \(transaction.storedCredential?.rawValue), \(bytea(transaction.duplicateMAC)), \(bytea(transaction.binding)),
                \(bytea(transaction.sealedReceiptAddress)))
            """
        if resettingOpen {
            query.sql += " ON CONFLICT (id) DO UPDATE SET status = \(TransactionStatus.pending.sqlLiteral), error_code = NULL, updated_at = excluded.updated_at"
        }
        try await sql.run(query)
    }

    /// Writes a gateway outcome onto the transaction's row.
    static func writeOutcome(_ transaction: Transaction, on sql: some BillingSQL, requiringMerchant: Bool) async throws {
        var query: PostgresQuery = """
            UPDATE transactions SET status = \(transaction.status.rawValue), gateway_transaction_id = \(transaction.gatewayTransactionID),
                auth_code = \(transaction.authCode), response_code = \(transaction.responseCode), response_text = \(transaction.responseText),
                avs_result = \(transaction.avsResult), cvv_result = \(transaction.cvvResult), decline_code = \(transaction.declineCode),
                decline_category = \(transaction.declineCategory), error_code = \(transaction.errorCode),
                updated_at = \(Timestamp.string(transaction.updatedAt)), network_transaction_id = \(transaction.networkTransactionID),
                binding = \(bytea(transaction.binding))
            WHERE id = \(transaction.id)
            """
        if requiringMerchant {
            query.append(" AND merchant_id = ", transaction.merchantID)
        }
        try await sql.run(query)
    }

    static func transaction(_ row: PostgresRowReader) throws -> Transaction {
        try Transaction(storedRow: row)
    }
}

extension PostgresQuery {
    /// Appends literal SQL, then `value` as the next bind parameter, then `suffix`.
    mutating func append(_ literal: String, _ value: some PostgresDynamicTypeEncodable, _ suffix: String = "") {
        sql += literal
        binds.append(value, context: .default)
        sql += "$\(binds.count)" + suffix
    }

}
