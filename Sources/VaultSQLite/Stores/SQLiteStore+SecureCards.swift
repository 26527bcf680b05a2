public import Foundation
public import Vault

extension SQLiteStore: SecureCardStore {
    public func insertSecureCard(_ row: SecureCardRow, audit: AuditEntry) async throws {
        try await database.write { connection in
            do {
                try connection.run(
                    """
                    INSERT INTO secure_cards (id, merchant_id, merchant_reference, status, card_type, masked_number, expiry_month,
                        expiry_year, entry_mode, fingerprint, key_version, sealed_card, sealed_details, verification, created_at, updated_at,
                        metadata_bound)
                    VALUES (?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [row.reference, row.merchantID, row.merchantReference, row.cardType.rawValue, row.maskedNumber,
                     row.expiry.month, row.expiry.year, row.entryMode.rawValue, row.fingerprint, row.keyVersion, row.sealedCard,
                     row.sealedDetails, try CardVerificationRecord.storedText(row.verification), Timestamp.string(row.createdAt), Timestamp.string(row.updatedAt),
                     row.metadataBound])
            } catch let error as SQLiteError where error.isUniqueViolation {
                throw SecureCardError.referenceTaken(row.merchantReference)
            }
            try Self.replaceNameIndex(of: row, on: connection)
            try connection.appendAudit(audit)
            try connection.enqueueWebhook(.secureCardRegistered, merchantID: row.merchantID, data: row.webhookData)
        }
    }

    public func updateSecureCard(_ row: SecureCardRow, audit: AuditEntry) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE secure_cards SET card_type = ?, masked_number = ?, expiry_month = ?, expiry_year = ?,
                    entry_mode = ?, fingerprint = ?, key_version = ?, sealed_card = ?, sealed_details = ?, verification = ?, updated_at = ?,
                    metadata_bound = ?
                WHERE id = ? AND merchant_id = ? AND status = 'active'
                """,
                [row.cardType.rawValue, row.maskedNumber, row.expiry.month, row.expiry.year, row.entryMode.rawValue,
                 row.fingerprint, row.keyVersion, row.sealedCard, row.sealedDetails, try CardVerificationRecord.storedText(row.verification),
                 Timestamp.string(row.updatedAt), row.metadataBound, row.reference, row.merchantID])
            guard connection.changes == 1 else { throw SecureCardError.notFound }
            try Self.replaceNameIndex(of: row, on: connection)
            try connection.appendAudit(audit)
            try connection.enqueueWebhook(.secureCardUpdated, merchantID: row.merchantID, data: row.webhookData)
        }
    }

    public func secureCard(merchantID: String, merchantReference: String) async throws -> SecureCardRow? {
        try await database.read { connection in
            try connection.queryOne(
                "SELECT * FROM secure_cards WHERE merchant_id = ? AND merchant_reference = ? AND status = 'active'", [merchantID, merchantReference]
            ).map(Self.secureCardRow)
        }
    }

    public func secureCard(merchantID: String, reference: String) async throws -> SecureCardRow? {
        try await database.read { connection in
            try connection.queryOne("SELECT * FROM secure_cards WHERE merchant_id = ? AND id = ?", [merchantID, reference]).map(Self.secureCardRow)
        }
    }

    public func deletedSecureCard(merchantID: String, merchantReference: String) async throws -> SecureCardRow? {
        try await database.read { connection in
            try connection.queryOne(
                """
                SELECT * FROM secure_cards WHERE merchant_id = ? AND merchant_reference = ? AND status = 'deleted' AND purged_at IS NULL
                ORDER BY seq DESC LIMIT 1
                """, [merchantID, merchantReference]
            ).map(Self.secureCardRow)
        }
    }

    public func secureCards(merchantID: String, query: SecureCardQuery) async throws -> [SecureCardRow] {
        try await database.read { connection in
            var sql = "SELECT * FROM secure_cards WHERE merchant_id = ?"
            var arguments: [any SQLiteBindable] = [merchantID]
            if !query.includeDeleted { sql += " AND status = 'active'" }
            if let reference = query.cardReference {
                sql += " AND id = ?"
                arguments.append(reference)
            }
            if let text = query.text, !text.isEmpty {
                sql += " AND (merchant_reference LIKE ? ESCAPE '\\' OR substr(masked_number, -4) = ? OR substr(masked_number, 1, 6) = ?"
                let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                    .replacingOccurrences(of: "_", with: "\\_")
                arguments.append(contentsOf: [escaped + "%", text, text] as [any SQLiteBindable])
                if let macs = query.textNameMACs, !macs.isEmpty {
                    sql += " OR " + Self.nameIndexCondition(macs.count)
                    arguments.append(merchantID)
                    arguments.append(contentsOf: macs as [any SQLiteBindable])
                    arguments.append(macs.count)
                }
                sql += ")"
            }
            if let macs = query.holderNameMACs {
                sql += " AND " + Self.nameIndexCondition(macs.count)
                arguments.append(merchantID)
                arguments.append(contentsOf: macs as [any SQLiteBindable])
                arguments.append(macs.count)
            }
            if let after = query.afterSequence {
                sql += " AND seq > ?"
                arguments.append(after)
            }
            sql += " ORDER BY seq LIMIT ?"
            arguments.append(query.limit)
            return try connection.query(sql, arguments).map(Self.secureCardRow)
        }
    }

    public func deleteSecureCard(
        merchantID: String, reference: String, cancelSchedules: Bool, purge: Bool, at date: Date, audit: AuditEntry
    ) async throws -> [String] {
        try await database.write { connection in
            let stamp = Timestamp.string(date)
            let inUse = try connection.query(
                """
                SELECT id FROM schedules WHERE merchant_id = ? AND secure_card_id = ?
                AND status IN ('pending_confirmation', 'active', 'paused', 'past_due') ORDER BY seq
                """, [merchantID, reference]
            ).map { try $0.string("id") }
            if !inUse.isEmpty {
                guard cancelSchedules else { throw SchedulesInUse(scheduleIDs: inUse) }
                for id in inUse {
                    try connection.run("UPDATE schedules SET status = 'cancelled', updated_at = ? WHERE id = ?", [stamp, id])
                    try connection.run(
                        "UPDATE schedule_steps SET status = 'cancelled', updated_at = ? WHERE schedule_id = ? AND status IN ('scheduled', 'retry_pending')",
                        [stamp, id])
                    try connection.appendAudit(AuditEntry(
                        merchantID: merchantID, actor: audit.actor, action: "schedule.cancelled", objectType: "schedule", objectID: id,
                        details: ["reason": "secure card deleted"]))
                }
            }
            if purge {
                try connection.run(
                    """
                    UPDATE secure_cards SET status = 'deleted', deleted_at = coalesce(deleted_at, ?), purged_at = ?, sealed_card = NULL,
                        sealed_details = NULL, updated_at = ?
                    WHERE id = ? AND merchant_id = ? AND (status = 'active' OR (status = 'deleted' AND purged_at IS NULL))
                    """, [stamp, stamp, stamp, reference, merchantID])
            } else {
                try connection.run(
                    "UPDATE secure_cards SET status = 'deleted', deleted_at = ?, updated_at = ? WHERE id = ? AND merchant_id = ? AND status = 'active'",
                    [stamp, stamp, reference, merchantID])
            }
            guard connection.changes == 1 else { throw SecureCardError.notFound }
            if purge {
                try connection.shredIdempotentResponses(merchantID: merchantID, secureCardID: reference)
                try connection.run("DELETE FROM secure_card_names WHERE secure_card_id = ?", [reference])
                try connection.run(
                    "UPDATE transactions SET duplicate_mac = NULL WHERE merchant_id = ? AND secure_card_id = ? AND duplicate_mac IS NOT NULL",
                    [merchantID, reference])
            }
            try connection.appendAudit(audit)
            try connection.enqueueWebhook(
                .secureCardDeleted, merchantID: merchantID,
                data: ["secureCardReference": .string(reference), "purged": .bool(purge), "cancelledSchedules": .array(inUse.map { .string($0) })])
            return inUse
        }
    }

    public func recordRead(_ audit: AuditEntry) {
        appendAuditLater(PendingAuditEvent(audit))
    }

    public func secureCardsToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws -> [SecureCardRow] {
        try await database.read { connection in
            try connection.query(
                "SELECT * FROM secure_cards WHERE merchant_id = ? AND key_version < ? AND (sealed_card IS NOT NULL OR sealed_details IS NOT NULL) LIMIT ?",
                [merchantID, keyVersion, limit]
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
                    UPDATE secure_cards SET key_version = ?, sealed_card = ?, sealed_details = ?, metadata_bound = ?
                    WHERE id = ? AND key_version = ? AND purged_at IS NULL
                    """,
                    [newVersion, card, details, bound, reference, oldVersion])
                changed += connection.changes
            }
            return changed
        }
    }

    public func secureCardsWithUnboundMetadata(afterSequence: Int64, limit: Int) async throws -> [SecureCardRow] {
        try await database.read { connection in
            try connection.query(
                "SELECT * FROM secure_cards WHERE metadata_bound = 0 AND sealed_card IS NOT NULL AND seq > ? ORDER BY seq LIMIT ?", [afterSequence, limit]
            ).map(Self.secureCardRow)
        }
    }

    public func bindSecureCardMetadata(_ old: SecureCardRow, sealedCard: [UInt8]) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE secure_cards SET sealed_card = ?, metadata_bound = 1
                WHERE id = ? AND merchant_id = ? AND metadata_bound = 0 AND key_version = ? AND sealed_card = ?
                """,
                [sealedCard, old.reference, old.merchantID, old.keyVersion, old.sealedCard])
            return connection.changes == 1
        }
    }

    public func secureCardsWithoutNameIndex(afterSequence: Int64, limit: Int) async throws -> [SecureCardRow] {
        try await database.read { connection in
            try connection.query(
                "SELECT * FROM secure_cards WHERE name_indexed = 0 AND sealed_card IS NOT NULL AND seq > ? ORDER BY seq LIMIT ?", [afterSequence, limit]
            ).map(Self.secureCardRow)
        }
    }

    public func indexSecureCardName(_ row: SecureCardRow, macs: [[UInt8]]) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                "UPDATE secure_cards SET name_indexed = 1 WHERE id = ? AND merchant_id = ? AND name_indexed = 0 AND sealed_card = ?",
                [row.reference, row.merchantID, row.sealedCard])
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
        try connection.run("DELETE FROM secure_card_names WHERE secure_card_id = ?", [row.reference])
        for mac in Set(macs) {
            try connection.run(
                "INSERT INTO secure_card_names (merchant_id, token_mac, secure_card_id) VALUES (?, ?, ?)", [row.merchantID, mac, row.reference])
        }
        try connection.run("UPDATE secure_cards SET name_indexed = 1 WHERE id = ?", [row.reference])
    }

    /// `id IN` the cards whose name has all of `count` token MACs (bound: merchant, the MACs, count).
    static func nameIndexCondition(_ count: Int) -> String {
        "id IN (SELECT secure_card_id FROM secure_card_names WHERE merchant_id = ? AND token_mac IN ("
            + Array(repeating: "?", count: count).joined(separator: ", ") + ") GROUP BY secure_card_id HAVING count(*) = ?)"
    }

    static func secureCardRow(_ row: SQLiteRow) throws -> SecureCardRow {
        try SecureCardRow(storedRow: row)
    }
}
