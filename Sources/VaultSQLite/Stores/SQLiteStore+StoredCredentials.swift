import Foundation
import Vault
public import Payments

extension SQLiteStore: StoredCredentialStore {
    public func storedCredential(merchantID: String, secureCardReference: String, gateway: String) async throws -> StoredCredentialRow? {
        try await database.readOne(
            """
            SELECT * FROM stored_credentials WHERE merchant_id = \(merchantID) AND secure_card_id = \(secureCardReference)
                AND gateway = \(gateway)
            """
        ).map(Self.storedCredential)
    }

    public func storedCredentials(merchantID: String, secureCardReferences: [String], gateway: String) async throws -> [StoredCredentialRow] {
        guard !secureCardReferences.isEmpty else { return [] }
        let references = CanonicalJSON.text(.array(secureCardReferences.map { .string($0) }))
        return try await database.read { connection in
            try connection.query(
                """
                SELECT * FROM stored_credentials WHERE merchant_id = \(merchantID)
                    AND secure_card_id IN (SELECT value FROM json_each(\(references))) AND gateway = \(gateway)
                """
            ).map(Self.storedCredential)
        }
    }

    public func saveStoredCredential(_ row: StoredCredentialRow, replacing: Bool) async throws {
        try await database.write { connection in
            var sql: SQLiteQuery = """
                INSERT INTO stored_credentials (merchant_id, secure_card_id, gateway, sealed_network_transaction_id, masked, transaction_id, created_at,
                    card_fingerprint)
                VALUES (\(row.merchantID), \(row.secureCardReference), \(row.gateway), \(row.sealedNetworkTransactionID), \(row.masked),
                    \(row.transactionID), \(Timestamp.string(row.createdAt)), \(row.cardFingerprint))
                ON CONFLICT (merchant_id, secure_card_id, gateway) DO
                """
            sql += replacing
                ? """
                     UPDATE SET sealed_network_transaction_id = excluded.sealed_network_transaction_id, masked = excluded.masked, \
                    transaction_id = excluded.transaction_id, created_at = excluded.created_at, card_fingerprint = excluded.card_fingerprint
                    """
                : " NOTHING"
            try connection.run(sql)
        }
    }

    public func storedCredentialsToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws -> [StoredCredentialRow] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT * FROM stored_credentials WHERE merchant_id = \(merchantID) AND substr(sealed_network_transaction_id, 1,
                    4) < \((0..<4).map { UInt8(truncatingIfNeeded: keyVersion >> (24 - 8 * $0)) })
                ORDER BY secure_card_id, gateway LIMIT \(limit)
                """
            ).map(Self.storedCredential)
        }
    }

    public func resealStoredCredential(_ row: StoredCredentialRow, old: [UInt8]) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE stored_credentials SET sealed_network_transaction_id = \(row.sealedNetworkTransactionID)
                WHERE merchant_id = \(row.merchantID) AND secure_card_id = \(row.secureCardReference) AND gateway = \(row.gateway)
                    AND sealed_network_transaction_id = \(old)
                """)
            return connection.changes > 0
        }
    }

    static func storedCredential(_ row: SQLiteRow) throws -> StoredCredentialRow {
        StoredCredentialRow(
            merchantID: try row.string("merchant_id"), secureCardReference: try row.string("secure_card_id"), gateway: try row.string("gateway"),
            sealedNetworkTransactionID: try row.blob("sealed_network_transaction_id"), masked: try row.string("masked"),
            transactionID: try row.optionalString("transaction_id"),
            createdAt: try row.table("stored_credentials", idColumn: "secure_card_id").instant("created_at"),
            cardFingerprint: try row.optionalString("card_fingerprint"))
    }
}
