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
                    WHERE merchant_id = \(transaction.merchantID) AND duplicate_mac = \(mac) AND created_at >= \(Timestamp.string(since))
                        AND status IN (\(unescaped: TransactionStatus.countedAsDuplicates.sqlLiterals))
                    ORDER BY created_at DESC LIMIT 1
                    """)
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
                    "SELECT * FROM transactions WHERE id = \(parentID) AND merchant_id = \(transaction.merchantID)"
                ).map(Self.transaction)
            else { throw TransactionError.notFound }
            let followUps = try connection.query(
                """
                SELECT * FROM transactions WHERE parent_id = \(parentID) ORDER BY seq
                """).map(Self.transaction)
            try check(parent, followUps)
            try Self.insert(transaction, on: connection)
            try connection.appendAudit(audit)
        }
    }

    public func completeTransaction(_ transaction: Transaction, parentUpdate: ParentUpdate?, audit: AuditEntry, notices: OutcomeNotices) async throws {
        try await database.write { connection in
            try Self.writeCompletion(transaction, parentUpdate: parentUpdate, audit: audit, notices: notices, on: connection)
        }
    }

    /// Writes a transaction's outcome, its original's change, its audit event and the notices the domain built for it.
    package static func writeCompletion(
        _ transaction: Transaction, parentUpdate: ParentUpdate?, audit: AuditEntry, notices: OutcomeNotices, on connection: SQLiteConnection
    ) throws {
        try connection.run(
            """
            UPDATE transactions SET status = \(transaction.status.rawValue),
                gateway_transaction_id = \(transaction.gatewayTransactionID), auth_code = \(transaction.authCode),
                response_code = \(transaction.responseCode), response_text = \(transaction.responseText),
                avs_result = \(transaction.avsResult), cvv_result = \(transaction.cvvResult),
                decline_code = \(transaction.declineCode), decline_category = \(transaction.declineCategory),
                error_code = \(transaction.errorCode), updated_at = \(Timestamp.string(transaction.updatedAt)),
                network_transaction_id = \(transaction.networkTransactionID), binding = \(transaction.binding)
            WHERE id = \(transaction.id) AND merchant_id = \(transaction.merchantID)
            """)
        if let update = parentUpdate {
            // The status is derived from the amounts in this statement (ParentUpdate.assignmentsSQL),
            // never from a copy read before the write.
            try connection.run(
                """
                UPDATE transactions SET \(unescaped: update.assignmentsSQL), updated_at = \(Timestamp.string(transaction.updatedAt))
                WHERE id = \(update.parentID) AND merchant_id = \(transaction.merchantID)
                """)
            if transaction.type == .void, update.change == .void {
                // An authorization and its capture are one transaction at the gateway: voiding
                // either voids both, so both are recorded voided (no second void is sent).
                try connection.run(
                    """
                    UPDATE transactions SET status = \(unescaped: TransactionStatus.voided.sqlLiteral), updated_at = \(Timestamp.string(transaction.updatedAt))
                    WHERE merchant_id = \(transaction.merchantID) AND status IN (\(unescaped: TransactionStatus.voidedTogether.sqlLiterals)) AND (
                        id = (SELECT parent_id FROM transactions WHERE id = \(update.parentID)
                        AND merchant_id = \(transaction.merchantID) AND type = \(unescaped: TransactionType.capture.sqlLiteral))
                        OR (parent_id = \(update.parentID) AND type = \(unescaped: TransactionType.capture.sqlLiteral)))
                    """)
            }
        }
        try connection.appendAudit(audit)
        try Self.enqueue(notices, merchantID: transaction.merchantID, on: connection)
    }

    public func attachSecureCard(
        transactionID: String, merchantID: String, secureCardReference: String, merchantReference: String, binding: [UInt8]
    ) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE transactions SET secure_card_id = \(secureCardReference), merchant_reference = \(merchantReference),
                    binding = \(binding)
                    WHERE id = \(transactionID) AND merchant_id = \(merchantID)
                """)
        }
    }

    public func transaction(merchantID: String, id: String) async throws -> Transaction? {
        try await database.readOne("SELECT * FROM transactions WHERE merchant_id = \(merchantID) AND id = \(id)").map(Self.transaction)
    }

    public func transactions(
        merchantID: String, filter: TransactionFilter, order: TransactionSortOrder, afterSequence: Int64?, limit: Int
    ) async throws -> [Transaction] {
        try await database.read { connection in
            var sql: SQLiteQuery = "SELECT * FROM transactions WHERE merchant_id = \(merchantID)"
            Self.appendConditions(of: filter, merchantID: merchantID, to: &sql)
            sql.and(afterSequence) { order == .newestFirst ? "seq < \($0)" : "seq > \($0)" }
            sql.and(filter.windowStop) { order == .newestFirst ? "seq > \($0)" : "seq < \($0)" }
            sql += order == .newestFirst ? " ORDER BY seq DESC LIMIT \(limit)" : " ORDER BY seq LIMIT \(limit)"
            return try connection.query(sql).map(Self.transaction)
        }
    }

    public func transactionSequence(merchantID: String, order: TransactionSortOrder, afterSequence: Int64?, offset: Int) async throws -> Int64? {
        try await database.read { connection in
            var sql: SQLiteQuery = "SELECT seq FROM transactions WHERE merchant_id = \(merchantID)"
            sql.and(afterSequence) { order == .newestFirst ? "seq < \($0)" : "seq > \($0)" }
            sql += order == .newestFirst ? " ORDER BY seq DESC LIMIT 1 OFFSET \(offset)" : " ORDER BY seq LIMIT 1 OFFSET \(offset)"
            return try connection.query(sql).first.map { try $0.int64("seq") }
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
                    SELECT CAST(key AS INTEGER), json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(\(bounds))
                )
                SELECT periods.idx AS idx, t.currency AS currency, t.type AS type, t.status AS status, count(*) AS n, sum(t.amount) AS turnover,
                    min(t.amount) AS smallest, max(t.amount) AS largest, sum(t.captured_amount) AS captured,
                    sum(t.refunded_amount) AS refunded, sum(t.voided_amount) AS voided
                FROM periods JOIN transactions AS t
                    ON t.merchant_id = \(merchantID) AND t.created_at >= periods.lo AND t.created_at < periods.hi
                WHERE t.type IN (SELECT value FROM json_each(\(types))) AND (\(currency) IS NULL OR t.currency = \(currency))
                GROUP BY periods.idx, t.currency, t.type, t.status
                """
            ) { row in
                guard let status = TransactionStatus(rawValue: try row.string("status")),
                    let type = TransactionType(rawValue: try row.string("type"))
                else { return }
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

    /// The `WHERE` conditions of a transaction search, each value bound.
    package static func appendConditions(of filter: TransactionFilter, merchantID: String, to sql: inout SQLiteQuery) {
        sql.and(filter.status?.rawValue) { "status = \($0)" }
        sql.and(filter.type?.rawValue) { "type = \($0)" }
        sql.and(filter.scheduleID) { "schedule_id = \($0)" }
        sql.and(filter.secureCardReference) { "secure_card_id = \($0)" }
        sql.and(filter.createdFrom.map(Timestamp.string)) { "created_at >= \($0)" }
        sql.and(filter.createdBefore.map(Timestamp.string)) { "created_at < \($0)" }
        sql.and(filter.minimumAmount) { "amount >= \($0)" }
        sql.and(filter.maximumAmount) { "amount <= \($0)" }
        sql.and(filter.currency?.code) { "currency = \($0)" }
        if let text = filter.text, !text.isEmpty {
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_")
            sql += " AND (id = \(text) OR merchant_reference LIKE \(escaped + "%") ESCAPE '\\' OR description LIKE \("%" + escaped + "%") ESCAPE '\\'"
            if text.utf8.count == 4, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                sql += " OR substr(masked_number, -4) = \(text)"
            }
            for reading in TransactionFilter.amountReadings(of: text, currency: filter.currency) {
                let currencies = "[" + reading.currencies.map { "\"\($0)\"" }.joined(separator: ",") + "]"
                sql += " OR (amount = \(reading.minorUnits) AND currency IN (SELECT value FROM json_each(\(currencies))))"
            }
            if let macs = filter.textNameMACs, !macs.isEmpty {
                // The cards of the merchant whose holder name has every word (the blind index), looked up once.
                sql += """
                     OR secure_card_id IN (SELECT secure_card_id FROM secure_card_names WHERE merchant_id = \(merchantID) \
                    AND token_mac IN (\(list: macs)) GROUP BY secure_card_id HAVING count(*) = \(macs.count))
                    """
            }
            if let day = filter.textDay {
                sql += " OR (created_at >= \(Timestamp.string(day.lowerBound)) AND created_at < \(Timestamp.string(day.upperBound)))"
            }
            sql += ")"
        }
    }

    /// Queues an outcome's notices in the outcome's own transaction.
    package static func enqueue(_ notices: OutcomeNotices, merchantID: String, on connection: SQLiteConnection) throws {
        for receipt in notices.receipts { try connection.enqueueReceipt(receipt) }
        guard !notices.webhooks.isEmpty else { return }
        let hasCallback = try connection.merchantHasCallback(merchantID)
        for event in notices.webhooks { try connection.enqueueWebhook(event, merchantHasCallback: hasCallback) }
    }

    /// Inserts `transaction`; with `resettingOpen`, one already recorded under its id (an open
    /// attempt sent again) is set back to `pending` instead.
    package static func insert(_ transaction: Transaction, on connection: SQLiteConnection, resettingOpen: Bool = false) throws {
        var sql: SQLiteQuery = """
            INSERT INTO transactions (id, merchant_id, type, status, amount, currency, secure_card_id, merchant_reference, card_type,
                masked_number, schedule_id, step_id, attempt, parent_id, idempotency_key, order_reference, description, gateway,
                gateway_transaction_id, created_at, updated_at, stored_credential, duplicate_mac, binding, receipt_address)
            VALUES (\(transaction.id), \(transaction.merchantID), \(transaction.type.rawValue), \(transaction.status.rawValue),
                \(transaction.amount), \(transaction.currency.code), \(transaction.secureCardReference), \(transaction.merchantReference),
                \(transaction.cardType), \(transaction.maskedNumber), \(transaction.scheduleID), \(transaction.stepID),
                \(transaction.attempt), \(transaction.parentID), \(transaction.idempotencyKey), \(transaction.orderReference),
                \(transaction.description), \(transaction.gateway), \(transaction.gatewayTransactionID),
                \(Timestamp.string(transaction.createdAt)), \(Timestamp.string(transaction.updatedAt)),
                \(transaction.storedCredential?.rawValue), \(transaction.duplicateMAC), \(transaction.binding),
                \(transaction.sealedReceiptAddress))
            """
        if resettingOpen {
            sql += " ON CONFLICT (id) DO UPDATE SET status = \(unescaped: TransactionStatus.pending.sqlLiteral), error_code = NULL, updated_at = excluded.updated_at"
        }
        try connection.run(sql)
    }

    package static func transaction(_ row: SQLiteRow) throws -> Transaction {
        try Transaction(storedRow: row)
    }
}
