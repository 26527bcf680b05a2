public import Foundation
public import Vault

/// Destroying data-key versions no record uses any more (after `keys rotate --data`).
extension SQLiteStore: KeyStatusStore {
    /// Blob columns that never hold a record sealed by `Keyring.sealRecord` (keys, hashes, MACs).
    static let unsealedBlobColumns: Set<String> = [
        "merchant_keys.wrapped_key", "system_keys.wrapped_key", "kek_versions.check_value", "audit_events.prev_hash", "audit_events.hash",
        "api_keys.secret_hash", "api_keys.binding", "secure_card_names.token_mac", "transactions.duplicate_mac", "audit_chain_bindings.head",
        "audit_chain_bindings.mac", "schedules.binding", "schedule_steps.binding", "transactions.binding", "email_receipts.binding", "capture_sessions.secret_mac",
        "merchant_keys.signs_until_binding",
        // Sealed under a subkey of the KEK, its header a KEK version (`Keyring.sealOperatorSecret`).
        "operators.totp_secret",
    ]

    /// Every blob column of every table that may hold a sealed record, with the column naming the
    /// owning merchant (nil when the table has none: its blobs then count for every merchant).
    ///
    /// Read from the schema, so a table added later that stores sealed records (idempotency
    /// responses, ...) is counted without being listed here.
    static func sealedBlobColumns(on connection: SQLiteConnection) throws -> [(table: String, column: String, owner: String?)] {
        var found: [(String, String, String?)] = []
        let tables = try connection.query("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        for table in try tables.map({ try $0.string("name") }) {
            let columns = try connection.query("SELECT name, type FROM pragma_table_info(\(table))").map {
                (name: try $0.string("name"), type: try $0.string("type").uppercased())
            }
            let owner = table == "merchants" ? "id" : columns.contains { $0.name == "merchant_id" } ? "merchant_id" : nil
            for column in columns where (column.type == "BLOB" || column.type == "ANY" || column.type.isEmpty)
                && !unsealedBlobColumns.contains(table + "." + column.name)
            {
                found.append((table, column.name, owner))
            }
        }
        return found
    }

    /// How many stored blobs of `merchantID` (or of no merchant in particular) say they were sealed
    /// with data-key `version` (the 4-byte version header of `Keyring.sealRecord`).
    static func recordsSealed(withDataKeyVersion version: Int, merchantID: String, on connection: SQLiteConnection) throws -> Int {
        let header = Keyring.versionHeader(version)
        var total = 0
        for (table, column, owner) in try sealedBlobColumns(on: connection) {
            var sql: SQLiteQuery = """
                SELECT count(*) AS n FROM "\(unescaped: table)" WHERE typeof("\(unescaped: column)") = 'blob' \
                AND length("\(unescaped: column)") >= \(4 + RecordCipher.overhead) AND substr("\(unescaped: column)", 1, 4) = \(header)
                """
            if let owner {
                sql += " AND \"\(unescaped: owner)\" = \(merchantID)"
            }
            total += try connection.queryOne(sql)?.int("n") ?? 0
        }
        return total
    }

    /// Destroys (erases the wrapped key, sets `destroyed_at`) every data-key version of the merchant
    /// below `newest` that no stored record uses, each with a `keys.data_key_destroyed` event.
    ///
    /// Counting and erasing happen in one write transaction, so no record sealed with a version can
    /// be stored between the count and the erasure by any connection.
    /// - Returns: the destroyed versions.
    public func destroyUnusedDataKeys(merchantID: String, below newest: Int, at date: Date, actor: String) async throws -> [Int] {
        try await database.write { connection in
            let candidates = try connection.query(
                """
                SELECT version FROM merchant_keys WHERE merchant_id = \(merchantID) AND purpose = \(unescaped: KeyPurpose.data.sqlLiteral) AND version < \(newest)
                    AND wrapped_key IS NOT NULL ORDER BY version
                """
            ).map { try $0.int("version") }
            var destroyed: [Int] = []
            for version in candidates where try Self.recordsSealed(withDataKeyVersion: version, merchantID: merchantID, on: connection) == 0 {
                try connection.run(
                    """
                    UPDATE merchant_keys SET wrapped_key = NULL, destroyed_at = \(Timestamp.string(date)) WHERE merchant_id = \(merchantID)
                        AND purpose = \(unescaped: KeyPurpose.data.sqlLiteral) AND version = \(version)
                    """)
                try connection.appendAudit(AuditEntry(
                    merchantID: merchantID, actor: actor, action: "keys.data_key_destroyed", objectType: "merchant", objectID: merchantID,
                    details: ["version": String(version)]))
                destroyed.append(version)
            }
            return destroyed
        }
    }

    /// Data keys of active merchants: live, of which superseded by a newer version but still in
    /// use, and destroyed after being superseded (for `keys status`).
    public func dataKeySummary() async throws -> (live: Int, supersededLive: Int, destroyedAfterRotation: Int) {
        try await database.read { connection in
            let row = try connection.queryOne(
                """
                SELECT
                    sum(k.wrapped_key IS NOT NULL) AS live,
                    sum(k.wrapped_key IS NOT NULL AND newer.version IS NOT NULL) AS superseded,
                    sum(k.wrapped_key IS NULL AND newer.version IS NOT NULL) AS destroyed
                FROM merchant_keys AS k
                JOIN merchants AS m ON m.id = k.merchant_id AND m.status = \(unescaped: Merchant.Status.active.sqlLiteral)
                LEFT JOIN (SELECT merchant_id, max(version) AS version FROM merchant_keys WHERE purpose = \(unescaped: KeyPurpose.data.sqlLiteral) GROUP BY merchant_id) AS newer
                    ON newer.merchant_id = k.merchant_id AND newer.version > k.version
                WHERE k.purpose = \(unescaped: KeyPurpose.data.sqlLiteral)
                """)
            return (try row?.optionalInt("live") ?? 0, try row?.optionalInt("superseded") ?? 0, try row?.optionalInt("destroyed") ?? 0)
        }
    }

    /// The KEK version wrapping the audit key, or nil before it exists (for `keys status`).
    public func auditKeyKEKVersion() async throws -> Int? {
        try await database.readOne("SELECT kek_version FROM system_keys WHERE purpose = 'audit'")?.int("kek_version")
    }
}
