import Foundation
import PostgresNIO
public import Vault
import Scheduler
import Synchronization

extension PostgresStore: SecureCardStore {
    /// The card, its holder-name index and its `secure_card.registered` webhook event go in one
    /// statement (the merchant's `callbackUrl` read in it), then the audit event links to the
    /// merchant's chain before `COMMIT` (`PostgresWrite.finish`, the head locked last): five round
    /// trips with `BEGIN` and `COMMIT`, where one statement each took eleven or more, and the card
    /// row is written once (`name_indexed` set at insert, not by a second `UPDATE`, which moved the
    /// row out of the partial index of unindexed cards and rewrote every index).
    public func insertSecureCard(_ row: SecureCardRow, change: SecureCardChange) async throws {
        let verification = try CardVerificationRecord.storedText(row.verification)
        let (event, audit) = (change.event, change.audit)
        // No MACs: the name is indexed later (`indexSecureCardName`), as on SQLite.
        let nameMACs = Self.nameIndexMACs(row.holderNameMACs ?? [])
        let nameIndexed = row.holderNameMACs == nil ? 0 : 1
        try await write { transaction in
            do {
                try await transaction.run(
                    prepared: """
                    WITH card AS (
                        INSERT INTO secure_cards (id, merchant_id, merchant_reference, status, card_type, masked_number, expiry_month,
                            expiry_year, entry_mode, fingerprint, key_version, sealed_card, sealed_details, verification, created_at, updated_at,
                            metadata_bound, name_indexed)
                        VALUES (\(row.reference), \(row.merchantID), \(row.merchantReference), \(unescaped: SecureCard.Status.active.sqlLiteral), \(row.cardType.rawValue), \(row.maskedNumber),
                            \(row.expiry.month), \(row.expiry.year), \(row.entryMode.rawValue), \(row.fingerprint), \(row.keyVersion),
                            \(bytea(row.sealedCard)), \(bytea(row.sealedDetails)), \(verification), \(Timestamp.string(row.createdAt)),
                            \(Timestamp.string(row.updatedAt)), \(row.metadataBound ? 1 : 0), \(nameIndexed))
                        RETURNING id, merchant_id
                    ), names AS (
                        INSERT INTO secure_card_names (merchant_id, token_mac, secure_card_id)
                        SELECT card.merchant_id, n.mac, card.id FROM card, unnest(\(nameMACs)::bytea[]) AS n(mac)
                        RETURNING 1
                    ), hook AS (
                        INSERT INTO webhook_events (id, merchant_id, type, payload, status, attempts, next_attempt_at, last_error, created_at,
                            expires_at)
                        SELECT \(event.id), card.merchant_id, \(event.type.rawValue), \(event.body), \(unescaped: WebhookEventStatus.pending.sqlLiteral), 0, \(event.createdAt),
                            CASE WHEN m.callback_url IS NULL THEN \(PostgresWrite.noCallbackError) END, \(event.createdAt), \(event.expiresAt)
                        FROM card LEFT JOIN merchants m ON m.id = card.merchant_id
                        RETURNING 1
                    )
                    SELECT (SELECT count(*) FROM names) AS names, (SELECT count(*) FROM hook) AS events
                    """)
            } catch let error where error.postgresUniqueConstraint?.hasPrefix("secure_cards") == true {
                throw SecureCardError.referenceTaken(row.merchantReference)
            }
            try await transaction.appendAudit(audit)
        }
    }

    public func updateSecureCard(_ row: SecureCardRow, change: SecureCardChange) async throws {
        let verification = try CardVerificationRecord.storedText(row.verification)
        let (event, audit) = (change.event, change.audit)
        try await write { transaction in
            // A new card number: the stored credentials of the old number go (a first use of one
            // number is no first use of another); one stored by the new number's verification stays.
            _ = try await transaction.run(
                """
                DELETE FROM stored_credentials WHERE merchant_id = \(row.merchantID) AND secure_card_id = \(row.reference)
                    AND (card_fingerprint IS NULL OR card_fingerprint <> \(row.fingerprint))
                    AND EXISTS (SELECT 1 FROM secure_cards WHERE id = \(row.reference) AND merchant_id = \(row.merchantID)
                        AND fingerprint <> \(row.fingerprint))
                """)
            let changed = try await transaction.run(
                """
                UPDATE secure_cards SET card_type = \(row.cardType.rawValue), masked_number = \(row.maskedNumber), expiry_month = \(row.expiry.month),
                    expiry_year = \(row.expiry.year), entry_mode = \(row.entryMode.rawValue), fingerprint = \(row.fingerprint),
                    key_version = \(row.keyVersion), sealed_card = \(bytea(row.sealedCard)), sealed_details = \(bytea(row.sealedDetails)),
                    verification = \(verification), updated_at = \(Timestamp.string(row.updatedAt)), metadata_bound = \(row.metadataBound ? 1 : 0)
                WHERE id = \(row.reference) AND merchant_id = \(row.merchantID) AND status = \(unescaped: SecureCard.Status.active.sqlLiteral)
                RETURNING 1
                """)
            guard changed == 1 else { throw SecureCardError.notFound }
            try await Self.replaceNameIndex(of: row, on: transaction)
            try await transaction.appendAudit(audit)
            try await transaction.enqueueWebhook(event, merchantHasCallback: transaction.merchantHasCallback(row.merchantID))
        }
    }

    public func secureCard(merchantID: String, merchantReference: String) async throws -> SecureCardRow? {
        try await readStatement { connection in
            try await connection.row(
                prepared: "SELECT * FROM secure_cards WHERE merchant_id = \(merchantID) AND merchant_reference = \(merchantReference) AND status = \(unescaped: SecureCard.Status.active.sqlLiteral)",
                logger: logger
            ).map(Self.secureCardRow)
        }
    }

    public func secureCard(merchantID: String, reference: String) async throws -> SecureCardRow? {
        try await readStatement { connection in
            try await connection.row(prepared: "SELECT * FROM secure_cards WHERE merchant_id = \(merchantID) AND id = \(reference)", logger: logger)
                .map(Self.secureCardRow)
        }
    }

    public func secureCards(merchantID: String, references: [String]) async throws -> [SecureCardRow] {
        guard !references.isEmpty else { return [] }
        return try await readStatement { connection in
            try await connection.rows(
                "SELECT * FROM secure_cards WHERE merchant_id = \(merchantID) AND id = ANY(\(references)::text[])", logger: logger
            ).map(Self.secureCardRow)
        }
    }

    public func deletedSecureCard(merchantID: String, merchantReference: String) async throws -> SecureCardRow? {
        try await read { connection in
            try await connection.row(
                """
                SELECT * FROM secure_cards WHERE merchant_id = \(merchantID) AND merchant_reference = \(merchantReference)
                    AND status = \(unescaped: SecureCard.Status.deleted.sqlLiteral) AND purged_at IS NULL
                ORDER BY seq DESC LIMIT 1
                """, logger: logger
            ).map(Self.secureCardRow)
        }
    }

    public func secureCards(merchantID: String, query: SecureCardQuery) async throws -> [SecureCardRow] {
        var builder = PostgresQueryBuilder("SELECT * FROM secure_cards WHERE merchant_id = ")
        builder.append(builder.bind(merchantID))
        if !query.includeDeleted { builder.append(" AND status = " + SecureCard.Status.active.sqlLiteral) }
        builder.and({ "id = \($0)" }, query.cardReference)
        if let text = query.text, !text.isEmpty {
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_")
            builder.append(" AND (merchant_reference LIKE \(builder.bind(escaped + "%")) ESCAPE '\\'")
            builder.append(" OR right(masked_number, 4) = \(builder.bind(text)) OR left(masked_number, 6) = \(builder.bind(text))")
            if let macs = query.textNameMACs, !macs.isEmpty {
                builder.append(" OR " + Self.nameIndexCondition(merchantID: merchantID, macs: macs, into: &builder))
            }
            builder.append(")")
        }
        if let macs = query.holderNameMACs {
            builder.append(" AND " + Self.nameIndexCondition(merchantID: merchantID, macs: macs, into: &builder))
        }
        builder.and({ "seq > \($0)" }, query.afterSequence)
        builder.append(" ORDER BY seq LIMIT \(builder.bind(query.limit))")
        let sql = builder.query
        return try await read { connection in
            try await connection.rows(sql, logger: logger).map(Self.secureCardRow)
        }
    }

    public func deleteSecureCard(_ deletion: SecureCardDeletion, cancelSchedules: Bool) async throws -> [String] {
        let (merchantID, reference, purge, audit, date) = (deletion.merchantID, deletion.reference, deletion.purge, deletion.audit, deletion.at)
        let stamp = Timestamp.string(date)
        return try await write { transaction in
            // `schedules` comes with migration 2 (billing); the card's row is locked first so a
            // schedule created for it concurrently waits for this delete.
            let inUse = try await transaction.rows(
                """
                SELECT id FROM schedules WHERE merchant_id = \(merchantID) AND secure_card_id = \(reference)
                AND status = ANY(\(ScheduleStatus.open.map(\.rawValue))::text[]) ORDER BY seq
                """
            ).map { try $0.string("id") }
            if !inUse.isEmpty {
                guard cancelSchedules else { throw SchedulesInUse(scheduleIDs: inUse) }
                let cancellations = inUse.map { id in
                    ScheduleTransition.cancellation(ofScheduleOfDeletedCard: id, merchantID: merchantID, actor: audit.actor, at: date)
                }
                _ = try await Self.applyWithEvents(cancellations, on: transaction)
            }
            let changed: Int
            if purge {
                changed = try await transaction.run(
                    """
                    UPDATE secure_cards SET status = \(unescaped: SecureCard.Status.deleted.sqlLiteral), deleted_at = coalesce(deleted_at, \(stamp)), purged_at = \(stamp), sealed_card = NULL,
                        sealed_details = NULL, updated_at = \(stamp)
                    WHERE id = \(reference) AND merchant_id = \(merchantID) AND (status = \(unescaped: SecureCard.Status.active.sqlLiteral) OR (status = \(unescaped: SecureCard.Status.deleted.sqlLiteral) AND purged_at IS NULL))
                    RETURNING 1
                    """)
            } else {
                changed = try await transaction.run(
                    """
                    UPDATE secure_cards SET status = \(unescaped: SecureCard.Status.deleted.sqlLiteral), deleted_at = \(stamp), updated_at = \(stamp)
                    WHERE id = \(reference) AND merchant_id = \(merchantID) AND status = \(unescaped: SecureCard.Status.active.sqlLiteral)
                    RETURNING 1
                    """)
            }
            guard changed == 1 else { throw SecureCardError.notFound }
            if purge {
                try await transaction.shredIdempotentResponses(merchantID: merchantID, secureCardID: reference)
                try await transaction.run("DELETE FROM secure_card_names WHERE secure_card_id = \(reference)")
                try await transaction.run(
                    """
                    UPDATE transactions SET duplicate_mac = NULL
                    WHERE merchant_id = \(merchantID) AND secure_card_id = \(reference) AND duplicate_mac IS NOT NULL
                    """)
            }
            try await transaction.appendAudit(audit)
            try await transaction.enqueueWebhook(
                deletion.event(cancelledSchedules: inUse), merchantHasCallback: transaction.merchantHasCallback(merchantID))
            return inUse
        }
    }

    /// Records a read of card data: queued and written shortly after in a transaction of its own
    /// (reads are not slowed by the audit write; as `SQLiteDatabase.appendAuditLater`).
    public func recordRead(_ audit: AuditEntry) {
        let event = PendingAuditEvent(audit)
        guard readAudits.enqueue(event) else { return }
        Task { await self.flushReadAudits() }
    }

    /// Writes the queued read audits, a transaction per batch. A batch whose write fails (the
    /// primary lost during a failover, a restart) goes back to the head of the queue and is tried
    /// again after a pause that doubles, so reads answered across a failover stay in the log; after
    /// `readAuditRetry.attempts` failures in a row, or once the store is closed, it is given up
    /// (logged by count).
    func flushReadAudits() async {
        var failures = 0
        while true {
            let events = readAudits.drain()
            guard !events.isEmpty else { return }
            do {
                try await write { transaction in
                    for event in events { try await transaction.appendAudit(event) }
                }
                failures = 0
            } catch {
                failures += 1
                let retry = readAuditRetry.withLock { $0 }
                guard failures < retry.attempts, !isClosed.load(ordering: .acquiring) else {
                    logger.error("could not record card-data reads in the audit log", metadata: ["events": "\(events.count)"])
                    readAudits.endFlush()
                    return
                }
                readAudits.requeue(events)
                try? await Task.sleep(for: retry.delay(afterFailures: failures))
            }
        }
    }

    public func secureCardsToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws -> [SecureCardRow] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM secure_cards WHERE merchant_id = \(merchantID) AND key_version < \(keyVersion)
                    AND (sealed_card IS NOT NULL OR sealed_details IS NOT NULL) LIMIT \(limit)
                """, logger: logger
            ).map(Self.secureCardRow)
        }
    }

    public func resealSecureCards(_ rows: [(old: SecureCardRow, new: SecureCardRow)]) async throws -> Int {
        let updates = rows.map {
            ($0.old.reference, $0.old.keyVersion, $0.new.keyVersion, $0.new.sealedCard, $0.new.sealedDetails, $0.new.metadataBound)
        }
        return try await write { transaction in
            var changed = 0
            for (reference, oldVersion, newVersion, card, details, bound) in updates {
                changed += try await transaction.run(
                    """
                    UPDATE secure_cards SET key_version = \(newVersion), sealed_card = \(bytea(card)), sealed_details = \(bytea(details)),
                        metadata_bound = \(bound ? 1 : 0)
                    WHERE id = \(reference) AND key_version = \(oldVersion) AND purged_at IS NULL
                    RETURNING 1
                    """)
            }
            return changed
        }
    }

    public func secureCardsWithUnboundMetadata(afterSequence: Int64, limit: Int) async throws -> [SecureCardRow] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM secure_cards WHERE metadata_bound = 0 AND sealed_card IS NOT NULL AND seq > \(afterSequence)
                ORDER BY seq LIMIT \(limit)
                """, logger: logger
            ).map(Self.secureCardRow)
        }
    }

    public func bindSecureCardMetadata(_ old: SecureCardRow, sealedCard: [UInt8]) async throws -> Bool {
        try await write { transaction in
            try await transaction.run(
                """
                UPDATE secure_cards SET sealed_card = \(bytea(sealedCard)), metadata_bound = 1
                WHERE id = \(old.reference) AND merchant_id = \(old.merchantID) AND metadata_bound = 0 AND key_version = \(old.keyVersion)
                    AND sealed_card = \(bytea(old.sealedCard))
                RETURNING 1
                """) == 1
        }
    }

    public func secureCardsWithoutNameIndex(afterSequence: Int64, limit: Int) async throws -> [SecureCardRow] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM secure_cards WHERE name_indexed = 0 AND sealed_card IS NOT NULL AND seq > \(afterSequence)
                ORDER BY seq LIMIT \(limit)
                """, logger: logger
            ).map(Self.secureCardRow)
        }
    }

    public func indexSecureCardName(_ row: SecureCardRow, macs: [[UInt8]]) async throws -> Bool {
        try await write { transaction in
            let changed = try await transaction.run(
                """
                UPDATE secure_cards SET name_indexed = 1
                WHERE id = \(row.reference) AND merchant_id = \(row.merchantID) AND name_indexed = 0 AND sealed_card = \(bytea(row.sealedCard))
                RETURNING 1
                """)
            guard changed == 1 else { return false }
            var indexed = row
            indexed.holderNameMACs = macs
            try await Self.replaceNameIndex(of: indexed, on: transaction)
            return true
        }
    }

    /// Replaces a card's rows of the holder-name blind index when the row brings MACs: the old rows
    /// deleted, then the new ones inserted and the card marked indexed in one statement (one round
    /// trip for any number of name tokens, as `insertSecureCard` writes them).
    static func replaceNameIndex(of row: SecureCardRow, on transaction: PostgresWrite) async throws {
        guard let macs = row.holderNameMACs else { return }
        try await transaction.run("DELETE FROM secure_card_names WHERE secure_card_id = \(row.reference)")
        try await transaction.run(
            """
            WITH names AS (
                INSERT INTO secure_card_names (merchant_id, token_mac, secure_card_id)
                SELECT \(row.merchantID), n.mac, \(row.reference) FROM unnest(\(nameIndexMACs(macs))::bytea[]) AS n(mac)
                RETURNING 1
            )
            UPDATE secure_cards SET name_indexed = 1 WHERE id = \(row.reference)
            """)
    }

    /// A name's token MACs as the index stores them: each once, in a fixed order (bound as `bytea[]`).
    static func nameIndexMACs(_ macs: [[UInt8]]) -> [ByteBuffer] {
        Set(macs).sorted { $0.lexicographicallyPrecedes($1) }.map { ByteBuffer(bytes: $0) }
    }

    /// Cards whose name index holds every one of `macs`.
    static func nameIndexCondition(merchantID: String, macs: [[UInt8]], into builder: inout PostgresQueryBuilder) -> String {
        let merchant = builder.bind(merchantID)
        let list = macs.map { builder.bind(bytea($0)) }.joined(separator: ", ")
        let count = builder.bind(macs.count)
        return "id IN (SELECT secure_card_id FROM secure_card_names WHERE merchant_id = \(merchant) AND token_mac IN (\(list))"
            + " GROUP BY secure_card_id HAVING count(*) = \(count))"
    }

    static func secureCardRow(_ row: PostgresRowReader) throws -> SecureCardRow {
        try SecureCardRow(storedRow: row)
    }
}

/// Card-data reads waiting to be written to the audit log (one flush at a time).
final class PostgresReadAuditQueue: Sendable {
    private struct State {
        var events: [PendingAuditEvent] = []
        var flushing = false
        /// Callers of `waitUntilIdle` (closing the store), woken when the flush ends.
        var idleWaiters: [DispatchSemaphore] = []

        mutating func endFlush() {
            flushing = false
            for waiter in idleWaiters { waiter.signal() }
            idleWaiters.removeAll()
        }
    }

    private let state = Mutex(State())

    /// Queues `event`; true when the caller must start a flush.
    func enqueue(_ event: PendingAuditEvent) -> Bool {
        state.withLock { state in
            state.events.append(event)
            guard !state.flushing else { return false }
            state.flushing = true
            return true
        }
    }

    /// Whether no event waits and no flush runs (every read recorded so far is written or lost).
    var isIdle: Bool {
        state.withLock { $0.events.isEmpty && !$0.flushing }
    }

    /// Puts the events of a failed write back at the head of the queue, for the running flush to
    /// try again.
    func requeue(_ events: [PendingAuditEvent]) {
        state.withLock { $0.events.insert(contentsOf: events, at: 0) }
    }

    /// Ends a failed flush (its events are lost and logged by count; the next read starts a flush).
    func endFlush() {
        state.withLock { $0.endFlush() }
    }

    /// Takes the queued events; when there are none the flush ends.
    func drain() -> [PendingAuditEvent] {
        state.withLock { state in
            defer { state.events.removeAll() }
            if state.events.isEmpty { state.endFlush() }
            return state.events
        }
    }

    /// Blocks until the running flush (if any) has written every queued event, or `timeout` passes.
    /// - Returns: false when the timeout passed first.
    func waitUntilIdle(timeout: DispatchTime) -> Bool {
        let waiter: DispatchSemaphore? = state.withLock { state in
            guard state.flushing else { return nil }
            let waiter = DispatchSemaphore(value: 0)
            state.idleWaiters.append(waiter)
            return waiter
        }
        guard let waiter else { return true }
        return waiter.wait(timeout: timeout) == .success
    }
}

/// The pauses between tries of a failed write of read audits: `first`, doubling up to `longest`,
/// for `attempts` tries in all (by default about a minute, longer than a failover's search for
/// the new primary).
struct PostgresReadAuditRetry: Sendable {
    var first: Duration = .milliseconds(250)
    var longest: Duration = .seconds(8)
    var attempts = 12

    /// The pause after the `failures`-th failure in a row.
    func delay(afterFailures failures: Int) -> Duration {
        var delay = first
        for _ in 1..<max(failures, 1) where delay < longest { delay *= 2 }
        return min(delay, longest)
    }
}
