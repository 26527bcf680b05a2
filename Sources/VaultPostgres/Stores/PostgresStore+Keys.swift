public import Foundation
import PostgresNIO
public import Vault

extension PostgresStore: KeyStore {
    public func kekVersions() async throws -> [KEKVersionRecord] {
        try await read { connection in
            try await connection.rows("SELECT * FROM kek_versions ORDER BY version", logger: logger).map { row in
                let stored = TableRow(row, table: "kek_versions", id: String(try row.int("version")))
                return KEKVersionRecord(
                    version: try row.int("version"), checkValue: try row.blob("check_value"), createdAt: try stored.instant("created_at"),
                    retiredAt: try stored.optionalInstant("retired_at"))
            }
        }
    }

    /// Registers a KEK version once; servers starting together with a new master key both try, one inserts.
    public func registerKEKVersion(_ record: KEKVersionRecord) async throws {
        let stamp = Timestamp.string(record.createdAt)
        try await write { transaction in
            let inserted = try await transaction.run(
                """
                INSERT INTO kek_versions (version, check_value, created_at) VALUES (\(record.version), \(bytea(record.checkValue)), \(stamp))
                ON CONFLICT (version) DO NOTHING RETURNING 1
                """)
            if inserted == 1 {
                try await transaction.appendAudit(AuditEntry(
                    merchantID: nil, actor: "system", action: "keys.kek_registered", objectType: "kek", objectID: String(record.version)))
            }
        }
    }

    public func retireKEKVersions(below version: Int, at date: Date, audit: AuditEntry) async throws {
        let stamp = Timestamp.string(date)
        try await write { transaction in
            try await transaction.run("UPDATE kek_versions SET retired_at = \(stamp) WHERE version < \(version) AND retired_at IS NULL")
            try await transaction.appendAudit(audit)
        }
    }

    public func wrappedKey(merchantID: String, purpose: KeyPurpose, version: Int?) async throws -> WrappedKey? {
        try await read { connection in
            let row: PostgresRowReader?
            if let version {
                row = try await connection.row(
                    "SELECT * FROM merchant_keys WHERE merchant_id = \(merchantID) AND purpose = \(purpose.rawValue) AND version = \(version)",
                    logger: logger)
            } else {
                row = try await connection.row(
                    "SELECT * FROM merchant_keys WHERE merchant_id = \(merchantID) AND purpose = \(purpose.rawValue) ORDER BY version DESC LIMIT 1",
                    logger: logger)
            }
            return try row.map(Self.wrappedKey)
        }
    }

    public func wrappedKeys(kekVersionBelow kekVersion: Int, limit: Int) async throws -> [WrappedKey] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM merchant_keys WHERE kek_version < \(kekVersion) AND wrapped_key IS NOT NULL
                ORDER BY merchant_id COLLATE "C", purpose COLLATE "C", version LIMIT \(limit)
                """, logger: logger
            ).map(Self.wrappedKey)
        }
    }

    public func rewrap(_ keys: [(old: WrappedKey, new: WrappedKey)]) async throws -> Int {
        let pairs = keys.map { ($0.old.merchantID, $0.old.purpose.rawValue, $0.old.version, $0.old.kekVersion, $0.new.kekVersion, $0.new.wrapped) }
        return try await write { transaction in
            var changed = 0
            for (merchantID, purpose, version, oldKEK, newKEK, wrapped) in pairs {
                changed += try await transaction.run(
                    """
                    UPDATE merchant_keys SET kek_version = \(newKEK), wrapped_key = \(bytea(wrapped))
                    WHERE merchant_id = \(merchantID) AND purpose = \(purpose) AND version = \(version) AND kek_version = \(oldKEK)
                        AND wrapped_key IS NOT NULL
                    RETURNING 1
                    """)
            }
            return changed
        }
    }

    public func storeWrappedKeys(_ keys: [WrappedKey], audit: AuditEntry) async throws {
        try await write { transaction in
            for key in keys { try await Self.insertKey(key, on: transaction) }
            try await transaction.appendAudit(audit)
        }
    }

    public func destroyMerchantKeys(merchantID: String, at date: Date, audit: AuditEntry) async throws {
        let stamp = Timestamp.string(date)
        try await write { transaction in
            try await transaction.run(
                "UPDATE merchant_keys SET wrapped_key = NULL, destroyed_at = \(stamp) WHERE merchant_id = \(merchantID) AND wrapped_key IS NOT NULL")
            try await transaction.run(
                "UPDATE merchants SET status = \(unescaped: Merchant.Status.offboarded.sqlLiteral), gateway_credentials = NULL, updated_at = \(stamp) WHERE id = \(merchantID)")
            try await transaction.run("UPDATE api_keys SET revoked_at = \(stamp) WHERE merchant_id = \(merchantID) AND revoked_at IS NULL")
            try await transaction.appendAudit(audit)
        }
    }

    public func wrappedKeyCounts() async throws -> [Int: Int] {
        try await read { connection in
            var counts: [Int: Int] = [:]
            for row in try await connection.rows(
                "SELECT kek_version, count(*) AS n FROM merchant_keys WHERE wrapped_key IS NOT NULL GROUP BY kek_version", logger: logger)
            {
                counts[try row.int("kek_version")] = try row.int("n")
            }
            return counts
        }
    }

    public func attachSystemKeyCustodian(_ custodian: any SystemKeyCustodian) {
        auditKeys.attach(custodian)
    }

    public func rewrapSystemKeys(kekVersionBelow kekVersion: Int, with custodian: any SystemKeyCustodian) async throws -> Int {
        try await write { transaction in
            var changed = 0
            for row in try await transaction.rows(
                "SELECT purpose, kek_version, wrapped_key FROM system_keys WHERE kek_version < \(kekVersion) FOR UPDATE")
            {
                let purpose = try row.string("purpose")
                let key = try custodian.unwrapSystemKey(try row.blob("wrapped_key"), purpose: purpose, kekVersion: try row.int("kek_version"))
                let (newVersion, wrapped) = try custodian.wrapSystemKey(key, purpose: purpose)
                changed += try await transaction.run(
                    "UPDATE system_keys SET kek_version = \(newVersion), wrapped_key = \(bytea(wrapped)) WHERE purpose = \(purpose) RETURNING 1")
            }
            return changed
        }
    }

    static func insertKey(_ key: WrappedKey, on transaction: PostgresWrite) async throws {
        try await transaction.run(
            """
            INSERT INTO merchant_keys (merchant_id, purpose, version, kek_version, wrapped_key, created_at)
            VALUES (\(key.merchantID), \(key.purpose.rawValue), \(key.version), \(key.kekVersion), \(bytea(key.wrapped)),
                \(Timestamp.string(key.createdAt)))
            """)
    }

    static func wrappedKey(_ row: PostgresRowReader) throws -> WrappedKey {
        try WrappedKey(storedRow: row)
    }
}
