import Foundation
public import Vault
import Scheduler

extension SQLiteStore: SecureCardStore {
    public func insertSecureCard(_ row: SecureCardRow, change: SecureCardChange) async throws {
        try await database.write { connection in
            do {
                try connection.run(
                    """
                    INSERT INTO secure_cards (id, merchant_id, merchant_reference, status, card_type, masked_number, expiry_month,
                        expiry_year, entry_mode, fingerprint, key_version, sealed_card, sealed_details, verification, created_at, updated_at,
                        metadata_bound)
                    VALUES (\(row.reference), \(row.merchantID), \(row.merchantReference), \(unescaped: SecureCard.Status.active.sqlLiteral), \(row.cardType.rawValue),
                        \(row.maskedNumber), \(row.expiry.month), \(row.expiry.year), \(row.entryMode.rawValue), \(row.fingerprint),
                        \(row.keyVersion), \(row.sealedCard), \(row.sealedDetails), \(CardVerificationRecord.storedText(row.verification)),
                        \(Timestamp.string(row.createdAt)), \(Timestamp.string(row.updatedAt)), \(row.metadataBound))
                    """)
            } catch let error as SQLiteError where error.isUniqueViolation {
                throw SecureCardError.referenceTaken(row.merchantReference)
            }
            try Self.replaceNameIndex(of: row, on: connection)
            try connection.appendAudit(change.audit)
            try connection.enqueueWebhook(change.event, merchantHasCallback: connection.merchantHasCallback(row.merchantID))
        }
    }

    public func updateSecureCard(_ row: SecureCardRow, change: SecureCardChange) async throws {
        try await database.write { connection in
            // A new card number: the stored credentials of the old number go (a first use of one
            // number is no first use of another); one stored by the new number's verification stays.
            try connection.run(
                """
                DELETE FROM stored_credentials WHERE merchant_id = \(row.merchantID) AND secure_card_id = \(row.reference)
                    AND (card_fingerprint IS NULL OR card_fingerprint <> \(row.fingerprint))
                    AND EXISTS (SELECT 1 FROM secure_cards WHERE id = \(row.reference) AND merchant_id = \(row.merchantID)
                        AND fingerprint <> \(row.fingerprint))
                """)
            try connection.run(
                """
                UPDATE secure_cards SET card_type = \(row.cardType.rawValue), masked_number = \(row.maskedNumber),
                    expiry_month = \(row.expiry.month), expiry_year = \(row.expiry.year),
                    entry_mode = \(row.entryMode.rawValue), fingerprint = \(row.fingerprint), key_version = \(row.keyVersion),
                    sealed_card = \(row.sealedCard), sealed_details = \(row.sealedDetails),
                    verification = \(CardVerificationRecord.storedText(row.verification)), updated_at = \(Timestamp.string(row.updatedAt)),
                    metadata_bound = \(row.metadataBound)
                WHERE id = \(row.reference) AND merchant_id = \(row.merchantID) AND status = \(unescaped: SecureCard.Status.active.sqlLiteral)
                """)
            guard connection.changes == 1 else { throw SecureCardError.notFound }
            try Self.replaceNameIndex(of: row, on: connection)
            try connection.appendAudit(change.audit)
            try connection.enqueueWebhook(change.event, merchantHasCallback: connection.merchantHasCallback(row.merchantID))
        }
    }

    public func secureCard(merchantID: String, merchantReference: String) async throws -> SecureCardRow? {
        try await database.readOne(
            """
            SELECT * FROM secure_cards WHERE merchant_id = \(merchantID) AND merchant_reference = \(merchantReference)
                AND status = \(unescaped: SecureCard.Status.active.sqlLiteral)
            """
        ).map(Self.secureCardRow)
    }

    public func secureCard(merchantID: String, reference: String) async throws -> SecureCardRow? {
        try await database.readOne("SELECT * FROM secure_cards WHERE merchant_id = \(merchantID) AND id = \(reference)").map(Self.secureCardRow)
    }

    public func secureCards(merchantID: String, references: [String]) async throws -> [SecureCardRow] {
        guard !references.isEmpty else { return [] }
        let tokens = CanonicalJSON.text(.array(references.map { .string($0) }))
        return try await database.read { connection in
            try connection.query(
                "SELECT * FROM secure_cards WHERE merchant_id = \(merchantID) AND id IN (SELECT value FROM json_each(\(tokens)))"
            ).map(Self.secureCardRow)
        }
    }

    public func deletedSecureCard(merchantID: String, merchantReference: String) async throws -> SecureCardRow? {
        try await database.readOne(
            """
            SELECT * FROM secure_cards WHERE merchant_id = \(merchantID) AND merchant_reference = \(merchantReference)
                AND status = \(unescaped: SecureCard.Status.deleted.sqlLiteral) AND purged_at IS NULL
            ORDER BY seq DESC LIMIT 1
            """
        ).map(Self.secureCardRow)
    }

    public func secureCards(merchantID: String, query: SecureCardQuery) async throws -> [SecureCardRow] {
        try await database.read { connection in
            var sql: SQLiteQuery = "SELECT * FROM secure_cards WHERE merchant_id = \(merchantID)"
            if !query.includeDeleted { sql += " AND status = \(unescaped: SecureCard.Status.active.sqlLiteral)" }
            sql.and(query.cardReference) { "id = \($0)" }
            if let text = query.text, !text.isEmpty {
                let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                    .replacingOccurrences(of: "_", with: "\\_")
                sql += """
                     AND (merchant_reference LIKE \(escaped + "%") ESCAPE '\\' OR substr(masked_number, -4) = \(text) \
                    OR substr(masked_number, 1, 6) = \(text)
                    """
                if let macs = query.textNameMACs, !macs.isEmpty {
                    sql += " OR " + Self.nameIndexCondition(merchantID: merchantID, macs: macs)
                }
                sql += ")"
            }
            if let macs = query.holderNameMACs {
                sql += " AND " + Self.nameIndexCondition(merchantID: merchantID, macs: macs)
            }
            sql.and(query.afterSequence) { "seq > \($0)" }
            sql += " ORDER BY seq LIMIT \(query.limit)"
            return try connection.query(sql).map(Self.secureCardRow)
        }
    }

    public func deleteSecureCard(_ deletion: SecureCardDeletion, cancelSchedules: Bool) async throws -> [String] {
        let (merchantID, reference, purge, audit, date) = (deletion.merchantID, deletion.reference, deletion.purge, deletion.audit, deletion.at)
        return try await database.write { connection in
            let stamp = Timestamp.string(date)
            let inUse = try connection.query(
                """
                SELECT id FROM schedules WHERE merchant_id = \(merchantID) AND secure_card_id = \(reference)
                AND status IN (\(list: ScheduleStatus.open.map(\.rawValue))) ORDER BY seq
                """
            ).map { try $0.string("id") }
            if !inUse.isEmpty {
                guard cancelSchedules else { throw SchedulesInUse(scheduleIDs: inUse) }
                for id in inUse {
                    let cancellation = ScheduleTransition.cancellation(
                        ofScheduleOfDeletedCard: id, merchantID: merchantID, actor: audit.actor, at: date)
                    _ = try connection.apply(cancellation, hasCallback: { _ in false })
                }
            }
            if purge {
                try connection.run(
                    """
                    UPDATE secure_cards SET status = \(unescaped: SecureCard.Status.deleted.sqlLiteral), deleted_at = coalesce(deleted_at, \(stamp)), purged_at = \(stamp),
                        sealed_card = NULL,
                        sealed_details = NULL, updated_at = \(stamp)
                    WHERE id = \(reference) AND merchant_id = \(merchantID) AND (status = \(unescaped: SecureCard.Status.active.sqlLiteral) OR (status = \(unescaped: SecureCard.Status.deleted.sqlLiteral)
                        AND purged_at IS NULL))
                    """)
            } else {
                try connection.run(
                    """
                    UPDATE secure_cards SET status = \(unescaped: SecureCard.Status.deleted.sqlLiteral), deleted_at = \(stamp), updated_at = \(stamp) WHERE id = \(reference)
                        AND merchant_id = \(merchantID) AND status = \(unescaped: SecureCard.Status.active.sqlLiteral)
                    """)
            }
            guard connection.changes == 1 else { throw SecureCardError.notFound }
            if purge {
                try connection.shredIdempotentResponses(merchantID: merchantID, secureCardID: reference)
                try connection.run("DELETE FROM secure_card_names WHERE secure_card_id = \(reference)")
                try connection.run(
                    """
                    UPDATE transactions SET duplicate_mac = NULL WHERE merchant_id = \(merchantID) AND secure_card_id = \(reference)
                        AND duplicate_mac IS NOT NULL
                    """)
            }
            try connection.appendAudit(audit)
            try connection.enqueueWebhook(deletion.event(cancelledSchedules: inUse), merchantHasCallback: connection.merchantHasCallback(merchantID))
            return inUse
        }
    }

    public func recordRead(_ audit: AuditEntry) {
        appendAuditLater(PendingAuditEvent(audit))
    }

    public func secureCardsToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws -> [SecureCardRow] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT * FROM secure_cards WHERE merchant_id = \(merchantID) AND key_version < \(keyVersion)
                    AND (sealed_card IS NOT NULL OR sealed_details IS NOT NULL) LIMIT \(limit)
                """
            ).map(Self.secureCardRow)
        }
    }

    public func resealSecureCards(_ rows: [(old: SecureCardRow, new: SecureCardRow)]) async throws -> Int {
        let updates = rows.map {
            ($0.old.reference, $0.old.keyVersion, $0.new.keyVersion, $0.new.sealedCard, $0.new.sealedDetails, $0.new.metadataBound)
        }
        return try await database.write { connection in
            var changed = 0
            for (reference, oldVersion, newVersion, card, details, bound) in updates {
                try connection.run(
                    """
                    UPDATE secure_cards SET key_version = \(newVersion), sealed_card = \(card), sealed_details = \(details),
                        metadata_bound = \(bound)
                    WHERE id = \(reference) AND key_version = \(oldVersion) AND purged_at IS NULL
                    """)
                changed += connection.changes
            }
            return changed
        }
    }

    public func secureCardsWithUnboundMetadata(afterSequence: Int64, limit: Int) async throws -> [SecureCardRow] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT * FROM secure_cards WHERE metadata_bound = 0 AND sealed_card IS NOT NULL
                    AND seq > \(afterSequence) ORDER BY seq LIMIT \(limit)
                """
            ).map(Self.secureCardRow)
        }
    }

    public func bindSecureCardMetadata(_ old: SecureCardRow, sealedCard: [UInt8]) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE secure_cards SET sealed_card = \(sealedCard), metadata_bound = 1
                WHERE id = \(old.reference) AND merchant_id = \(old.merchantID) AND metadata_bound = 0 AND key_version = \(old.keyVersion)
                    AND sealed_card = \(old.sealedCard)
                """)
            return connection.changes == 1
        }
    }

    public func secureCardsWithoutNameIndex(afterSequence: Int64, limit: Int) async throws -> [SecureCardRow] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT * FROM secure_cards WHERE name_indexed = 0 AND sealed_card IS NOT NULL
                    AND seq > \(afterSequence) ORDER BY seq LIMIT \(limit)
                """
            ).map(Self.secureCardRow)
        }
    }

    public func indexSecureCardName(_ row: SecureCardRow, macs: [[UInt8]]) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE secure_cards SET name_indexed = 1 WHERE id = \(row.reference) AND merchant_id = \(row.merchantID)
                    AND name_indexed = 0 AND sealed_card = \(row.sealedCard)
                """)
            guard connection.changes == 1 else { return false }
            var indexed = row
            indexed.holderNameMACs = macs
            try Self.replaceNameIndex(of: indexed, on: connection)
            return true
        }
    }

    /// Replaces a card's rows of the holder-name blind index when the row brings MACs.
    static func replaceNameIndex(of row: SecureCardRow, on connection: SQLiteConnection) throws {
        guard let macs = row.holderNameMACs else { return }
        try connection.run("DELETE FROM secure_card_names WHERE secure_card_id = \(row.reference)")
        for mac in Set(macs) {
            try connection.run(
                """
                INSERT INTO secure_card_names (merchant_id, token_mac, secure_card_id) VALUES (\(row.merchantID), \(mac), \(row.reference))
                """)
        }
        try connection.run("UPDATE secure_cards SET name_indexed = 1 WHERE id = \(row.reference)")
    }

    /// `id IN` the cards whose name has all of `count` token MACs (bound: merchant, the MACs, count).
    static func nameIndexCondition(merchantID: String, macs: [[UInt8]]) -> SQLiteQuery {
        """
        id IN (SELECT secure_card_id FROM secure_card_names WHERE merchant_id = \(merchantID) AND token_mac IN (\(list: macs)) \
        GROUP BY secure_card_id HAVING count(*) = \(macs.count))
        """
    }

    static func secureCardRow(_ row: SQLiteRow) throws -> SecureCardRow {
        try SecureCardRow(storedRow: row)
    }
}
