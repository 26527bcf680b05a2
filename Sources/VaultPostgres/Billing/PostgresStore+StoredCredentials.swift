import Foundation
public import Payments
import PostgresNIO
import Vault

extension PostgresStore: StoredCredentialStore {
    /// One statement outside any transaction (read before each scheduled charge: `BEGIN` and
    /// `COMMIT` would be two more round trips per charged step).
    public func storedCredential(merchantID: String, secureCardReference: String, gateway: String) async throws -> StoredCredentialRow? {
        try await readStatement { connection in
            try await connection.row(
                """
                SELECT * FROM stored_credentials
                WHERE merchant_id = \(merchantID) AND secure_card_id = \(secureCardReference) AND gateway = \(gateway)
                """, logger: logger
            ).map(Self.storedCredential)
        }
    }

    public func storedCredentials(merchantID: String, secureCardReferences: [String], gateway: String) async throws -> [StoredCredentialRow] {
        guard !secureCardReferences.isEmpty else { return [] }
        return try await readStatement { connection in
            try await connection.rows(
                """
                SELECT * FROM stored_credentials
                WHERE merchant_id = \(merchantID) AND secure_card_id = ANY(\(secureCardReferences)::text[]) AND gateway = \(gateway)
                """, logger: logger
            ).map(Self.storedCredential)
        }
    }

    public func saveStoredCredential(_ row: StoredCredentialRow, replacing: Bool) async throws {
        var query: PostgresQuery = """
            INSERT INTO stored_credentials (merchant_id, secure_card_id, gateway, sealed_network_transaction_id, masked, transaction_id, created_at,
                card_fingerprint)
            VALUES (\(row.merchantID), \(row.secureCardReference), \(row.gateway), \(bytea(row.sealedNetworkTransactionID)), \(row.masked),
                \(row.transactionID), \(Timestamp.string(row.createdAt)), \(row.cardFingerprint))
            ON CONFLICT (merchant_id, secure_card_id, gateway) DO
            """
        query.sql += replacing
            ? " UPDATE SET sealed_network_transaction_id = excluded.sealed_network_transaction_id, masked = excluded.masked,"
                + " transaction_id = excluded.transaction_id, created_at = excluded.created_at, card_fingerprint = excluded.card_fingerprint"
            : " NOTHING"
        let statement = query
        try await write { write in
            _ = try await write.run(statement)
        }
    }

    public func storedCredentialsToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws -> [StoredCredentialRow] {
        let header = bytea((0..<4).map { UInt8(truncatingIfNeeded: keyVersion >> (24 - 8 * $0)) })
        return try await billingRead { connection in
            try await connection.rows(
                """
                SELECT * FROM stored_credentials
                WHERE merchant_id = \(merchantID) AND substring(sealed_network_transaction_id FROM 1 FOR 4) < \(header)
                ORDER BY secure_card_id, gateway LIMIT \(limit)
                """
            ).map(Self.storedCredential)
        }
    }

    public func resealStoredCredential(_ row: StoredCredentialRow, old: [UInt8]) async throws -> Bool {
        try await write { write in
            try await write.run(
                """
                UPDATE stored_credentials SET sealed_network_transaction_id = \(bytea(row.sealedNetworkTransactionID))
                WHERE merchant_id = \(row.merchantID) AND secure_card_id = \(row.secureCardReference) AND gateway = \(row.gateway)
                    AND sealed_network_transaction_id = \(bytea(old))
                RETURNING gateway
                """) > 0
        }
    }

    static func storedCredential(_ row: PostgresRowReader) throws -> StoredCredentialRow {
        StoredCredentialRow(
            merchantID: try row.string("merchant_id"), secureCardReference: try row.string("secure_card_id"), gateway: try row.string("gateway"),
            sealedNetworkTransactionID: try row.blob("sealed_network_transaction_id"), masked: try row.string("masked"),
            transactionID: try row.optionalString("transaction_id"), createdAt: try row.table("stored_credentials", idColumn: "secure_card_id").instant("created_at"),
            cardFingerprint: try row.optionalString("card_fingerprint"))
    }
}
