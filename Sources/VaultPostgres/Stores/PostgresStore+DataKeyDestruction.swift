public import Foundation
import PostgresNIO
import Vault

extension PostgresStore {
    /// bytea columns that never hold records sealed under a merchant's data key (as on SQLite).
    static let unsealedBlobColumns: Set<String> = [
        "merchant_keys.wrapped_key", "system_keys.wrapped_key", "kek_versions.check_value", "audit_events.prev_hash", "audit_events.hash",
        "audit_chains.last_hash", "api_keys.secret_hash", "api_keys.binding", "secure_card_names.token_mac", "transactions.duplicate_mac",
        "audit_chain_bindings.head", "audit_chain_bindings.mac", "schedules.binding", "schedule_steps.binding", "transactions.binding", "email_receipts.binding",
        "capture_sessions.secret_mac", "merchant_keys.signs_until_binding",
        // Sealed under a subkey of the KEK, its header a KEK version (`Keyring.sealOperatorSecret`).
        "operators.totp_secret",
    ]

    /// Every other bytea column of the schema, with the column naming its merchant (found in the
    /// catalogue, so tables of later migrations are covered without a list to keep).
    static func sealedBlobColumns(on transaction: PostgresWrite) async throws -> [(table: String, column: String, owner: String?)] {
        let columns = try await transaction.rows(
            """
            SELECT table_name::text AS t, column_name::text AS c, data_type::text AS d FROM information_schema.columns
            WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
            """)
        var byTable: [String: [(name: String, type: String)]] = [:]
        for row in columns { byTable[try row.string("t"), default: []].append((try row.string("c"), try row.string("d"))) }
        var found: [(String, String, String?)] = []
        for (table, columns) in byTable.sorted(by: { $0.key < $1.key }) {
            let owner = table == "merchants" ? "id" : columns.contains { $0.name == "merchant_id" } ? "merchant_id" : nil
            for column in columns where column.type == "bytea" && !unsealedBlobColumns.contains(table + "." + column.name) {
                found.append((table, column.name, owner))
            }
        }
        return found
    }

    /// How many records are sealed under `version` of the merchant's data key (each starts with the version header).
    static func recordsSealed(withDataKeyVersion version: Int, merchantID: String, on transaction: PostgresWrite) async throws -> Int {
        let header = Keyring.versionHeader(version)
        var total = 0
        for (table, column, owner) in try await sealedBlobColumns(on: transaction) {
            var builder = PostgresQueryBuilder("SELECT count(*) AS n FROM \"\(table)\" WHERE \"\(column)\" IS NOT NULL")
            builder.append(" AND length(\"\(column)\") >= \(builder.bind(4 + RecordCipher.overhead))")
            builder.append(" AND substring(\"\(column)\" from 1 for 4) = \(builder.bind(bytea(header)))")
            if let owner { builder.append(" AND \"\(owner)\" = \(builder.bind(merchantID))") }
            total += try await transaction.row(builder.query)?.int("n") ?? 0
        }
        return total
    }

    /// Destroys the merchant's data-key versions below `newest` that no stored record is sealed
    /// under (as on SQLite); the key rows are locked first, so two servers do not both decide.
    public func destroyUnusedDataKeys(merchantID: String, below newest: Int, at date: Date, actor: String) async throws -> [Int] {
        let stamp = Timestamp.string(date)
        return try await write { transaction in
            let candidates = try await transaction.rows(
                """
                SELECT version FROM merchant_keys WHERE merchant_id = \(merchantID) AND purpose = \(unescaped: KeyPurpose.data.sqlLiteral) AND version < \(newest)
                    AND wrapped_key IS NOT NULL ORDER BY version FOR UPDATE
                """
            ).map { try $0.int("version") }
            var destroyed: [Int] = []
            for version in candidates where try await Self.recordsSealed(withDataKeyVersion: version, merchantID: merchantID, on: transaction) == 0 {
                try await transaction.run(
                    """
                    UPDATE merchant_keys SET wrapped_key = NULL, destroyed_at = \(stamp)
                    WHERE merchant_id = \(merchantID) AND purpose = \(unescaped: KeyPurpose.data.sqlLiteral) AND version = \(version)
                    """)
                try await transaction.appendAudit(AuditEntry(
                    merchantID: merchantID, actor: actor, action: "keys.data_key_destroyed", objectType: "merchant", objectID: merchantID,
                    details: ["version": String(version)]))
                destroyed.append(version)
            }
            return destroyed
        }
    }

    /// Data keys of active merchants: live, live but superseded by a newer version, destroyed after a rotation.
    public func dataKeySummary() async throws -> (live: Int, supersededLive: Int, destroyedAfterRotation: Int) {
        try await read { connection in
            let row = try await connection.row(
                """
                SELECT
                    count(*) FILTER (WHERE k.wrapped_key IS NOT NULL) AS live,
                    count(*) FILTER (WHERE k.wrapped_key IS NOT NULL AND newer.version IS NOT NULL) AS superseded,
                    count(*) FILTER (WHERE k.wrapped_key IS NULL AND newer.version IS NOT NULL) AS destroyed
                FROM merchant_keys AS k
                JOIN merchants AS m ON m.id = k.merchant_id AND m.status = \(unescaped: Merchant.Status.active.sqlLiteral)
                LEFT JOIN (SELECT merchant_id, max(version) AS version FROM merchant_keys WHERE purpose = \(unescaped: KeyPurpose.data.sqlLiteral) GROUP BY merchant_id) AS newer
                    ON newer.merchant_id = k.merchant_id AND newer.version > k.version
                WHERE k.purpose = \(unescaped: KeyPurpose.data.sqlLiteral)
                """, logger: logger)
            return (try row?.optionalInt("live") ?? 0, try row?.optionalInt("superseded") ?? 0, try row?.optionalInt("destroyed") ?? 0)
        }
    }

    /// The KEK version the audit key is wrapped under; nil when there is no audit key yet.
    public func auditKeyKEKVersion() async throws -> Int? {
        try await read { connection in
            try await connection.row("SELECT kek_version FROM system_keys WHERE purpose = 'audit'", logger: logger)?.int("kek_version")
        }
    }
}
