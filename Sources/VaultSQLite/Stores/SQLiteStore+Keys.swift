public import Foundation
public import Vault

extension SQLiteStore: KeyStore {
    public func kekVersions() async throws -> [KEKVersionRecord] {
        try await database.read { connection in
            try connection.query("SELECT * FROM kek_versions ORDER BY version").map { row in
                let stored = TableRow(row, table: "kek_versions", id: String(try row.int("version")))
                return KEKVersionRecord(
                    version: try row.int("version"), checkValue: try row.blob("check_value"), createdAt: try stored.instant("created_at"),
                    retiredAt: try stored.optionalInstant("retired_at"))
            }
        }
    }

    public func registerKEKVersion(_ record: KEKVersionRecord) async throws {
        try await database.write { connection in
            try connection.run(
                """
                INSERT INTO kek_versions (version, check_value, created_at) VALUES (\(record.version), \(record.checkValue),
                    \(Timestamp.string(record.createdAt))) ON CONFLICT (version) DO NOTHING
                """)
            if connection.changes == 1 {
                try connection.appendAudit(AuditEntry(
                    merchantID: nil, actor: "system", action: "keys.kek_registered", objectType: "kek", objectID: String(record.version)))
            }
        }
    }

    public func retireKEKVersions(below version: Int, at date: Date, audit: AuditEntry) async throws {
        try await database.write { connection in
            try connection.run(
                "UPDATE kek_versions SET retired_at = \(Timestamp.string(date)) WHERE version < \(version) AND retired_at IS NULL")
            try connection.appendAudit(audit)
        }
    }

    public func wrappedKey(merchantID: String, purpose: KeyPurpose, version: Int?) async throws -> WrappedKey? {
        try await database.read { connection in
            let row: SQLiteRow?
            if let version {
                row = try connection.queryOne(
                    """
                    SELECT * FROM merchant_keys WHERE merchant_id = \(merchantID) AND purpose = \(purpose.rawValue) AND version = \(version)
                    """)
            } else {
                row = try connection.queryOne(
                    """
                    SELECT * FROM merchant_keys WHERE merchant_id = \(merchantID)
                        AND purpose = \(purpose.rawValue) ORDER BY version DESC LIMIT 1
                    """)
            }
            return try row.map(Self.wrappedKey)
        }
    }

    public func wrappedKeys(kekVersionBelow kekVersion: Int, limit: Int) async throws -> [WrappedKey] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT * FROM merchant_keys WHERE kek_version < \(kekVersion) AND wrapped_key IS NOT NULL ORDER BY merchant_id, purpose,
                    version LIMIT \(limit)
                """
            ).map(Self.wrappedKey)
        }
    }

    public func rewrap(_ keys: [(old: WrappedKey, new: WrappedKey)]) async throws -> Int {
        let pairs = keys.map { ($0.old.merchantID, $0.old.purpose.rawValue, $0.old.version, $0.old.kekVersion, $0.new.kekVersion, $0.new.wrapped) }
        return try await database.write { connection in
            var changed = 0
            for (merchantID, purpose, version, oldKEK, newKEK, wrapped) in pairs {
                try connection.run(
                    """
                    UPDATE merchant_keys SET kek_version = \(newKEK), wrapped_key = \(wrapped)
                    WHERE merchant_id = \(merchantID) AND purpose = \(purpose) AND version = \(version) AND kek_version = \(oldKEK)
                        AND wrapped_key IS NOT NULL
                    """)
                changed += connection.changes
            }
            return changed
        }
    }

    public func storeWrappedKeys(_ keys: [WrappedKey], audit: AuditEntry) async throws {
        try await database.write { connection in
            for key in keys { try Self.insertKey(key, on: connection) }
            try connection.appendAudit(audit)
        }
    }

    public func destroyMerchantKeys(merchantID: String, at date: Date, audit: AuditEntry) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE merchant_keys SET wrapped_key = NULL, destroyed_at = \(Timestamp.string(date)) WHERE merchant_id = \(merchantID)
                    AND wrapped_key IS NOT NULL
                """)
            try connection.run(
                """
                UPDATE merchants SET status = \(unescaped: Merchant.Status.offboarded.sqlLiteral), gateway_credentials = NULL, updated_at = \(Timestamp.string(date))
                    WHERE id = \(merchantID)
                """)
            try connection.run(
                """
                UPDATE api_keys SET revoked_at = \(Timestamp.string(date)) WHERE merchant_id = \(merchantID) AND revoked_at IS NULL
                """)
            try connection.appendAudit(audit)
        }
    }

    public func wrappedKeyCounts() async throws -> [Int: Int] {
        try await database.read { connection in
            var counts: [Int: Int] = [:]
            for row in try connection.query(
                "SELECT kek_version, count(*) AS n FROM merchant_keys WHERE wrapped_key IS NOT NULL GROUP BY kek_version")
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
        try await database.write { connection in
            var changed = 0
            for row in try connection.query("SELECT purpose, kek_version, wrapped_key FROM system_keys WHERE kek_version < \(kekVersion)") {
                let purpose = try row.string("purpose")
                let key = try custodian.unwrapSystemKey(try row.blob("wrapped_key"), purpose: purpose, kekVersion: try row.int("kek_version"))
                let (newVersion, wrapped) = try custodian.wrapSystemKey(key, purpose: purpose)
                try connection.run(
                    """
                    UPDATE system_keys SET kek_version = \(newVersion), wrapped_key = \(wrapped) WHERE purpose = \(purpose)
                    """)
                changed += connection.changes
            }
            return changed
        }
    }

    static func insertKey(_ key: WrappedKey, on connection: SQLiteConnection) throws {
        try connection.run(
            """
            INSERT INTO merchant_keys (merchant_id, purpose, version, kek_version, wrapped_key, created_at) VALUES (\(key.merchantID),
                \(key.purpose.rawValue), \(key.version), \(key.kekVersion), \(key.wrapped), \(Timestamp.string(key.createdAt)))
            """)
    }

    static func wrappedKey(_ row: SQLiteRow) throws -> WrappedKey {
        try WrappedKey(storedRow: row)
    }
}
