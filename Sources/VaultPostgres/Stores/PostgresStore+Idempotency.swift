public import Foundation
import PostgresNIO
public import Vault

/// `idempotency_keys.request_scheme` values (as on SQLite).
enum IdempotencyRequestScheme {
    static let legacyUnkeyed = 0
    static let macOfLegacyHash = 1
    static let mac = 2
}

extension PostgresStore: IdempotencyStore {
    /// Claims the key atomically across servers: `INSERT ... ON CONFLICT DO NOTHING` either inserts
    /// the claim (`started`) or waits for a concurrent claimer's transaction and then reads its row,
    /// locked, so of two servers finding the same abandoned claim only one takes it over.
    public func claimIdempotencyKey(
        merchantID: String, key: String, requestMAC: [UInt8], legacyRequestMAC: @escaping @Sendable () throws -> [UInt8],
        holder: IdempotencyClaimHolder, now: Date
    ) async throws -> IdempotencyClaim {
        let stamp = Timestamp.string(now)
        let expires = Timestamp.string(holder.expiresAt)
        return try await write { transaction in
            for _ in 0..<3 {
                let inserted = try await transaction.run(
                    """
                    INSERT INTO idempotency_keys (merchant_id, key, request_hash, request_scheme, state, created_at, owner, expires_at, transaction_id)
                    VALUES (\(merchantID), \(key), \(bytea(requestMAC)), \(IdempotencyRequestScheme.mac), \(unescaped: IdempotencyRecordState.inProgress.sqlLiteral), \(stamp),
                        \(holder.owner), \(expires), \(holder.transactionID))
                    ON CONFLICT (merchant_id, key) DO NOTHING RETURNING 1
                    """)
                if inserted == 1 { return .started }
                // Released between the conflict and this read: claim again.
                guard
                    let row = try await transaction.row(
                        "SELECT * FROM idempotency_keys WHERE merchant_id = \(merchantID) AND key = \(key) FOR UPDATE")
                else { continue }
                let completed = try TableRow(row, table: "idempotency_keys", id: key).value(IdempotencyRecordState.self, "state") == .completed
                let sealed = try row.optionalBlob("response_body")
                if completed && sealed == nil { return .purged }
                let stored = try row.blob("request_hash")
                switch try row.int("request_scheme") {
                case IdempotencyRequestScheme.mac:
                    guard constantTimeEquals(stored, requestMAC) else { return .mismatch }
                case IdempotencyRequestScheme.macOfLegacyHash:
                    guard constantTimeEquals(stored, try legacyRequestMAC()) else { return .mismatch }
                default:
                    return .inProgress
                }
                if completed, let sealed { return .replay(status: try row.int("status_code"), sealedBody: sealed) }
                if let expiresAt = try row.optionalString("expires_at"), expiresAt > stamp { return .inProgress }
                let reserved = try row.optionalString("transaction_id") ?? holder.transactionID
                try await transaction.run(
                    """
                    UPDATE idempotency_keys SET owner = \(holder.owner), expires_at = \(expires), transaction_id = \(reserved)
                    WHERE merchant_id = \(merchantID) AND key = \(key)
                    """)
                return .takenOver(transactionID: reserved)
            }
            return .inProgress
        }
    }

    @discardableResult
    public func completeIdempotentRequest(
        merchantID: String, key: String, owner: String, status: Int, sealedBody: [UInt8], keyVersion: Int, secureCardID: String?
    ) async throws -> Bool {
        try await write { transaction in
            try await transaction.run(
                """
                UPDATE idempotency_keys SET state = \(unescaped: IdempotencyRecordState.completed.sqlLiteral), status_code = \(status), response_body = \(bytea(sealedBody)),
                    key_version = \(keyVersion), secure_card_id = \(secureCardID), expires_at = NULL
                WHERE merchant_id = \(merchantID) AND key = \(key) AND state = \(unescaped: IdempotencyRecordState.inProgress.sqlLiteral) AND owner = \(owner)
                RETURNING 1
                """) == 1
        }
    }

    public func releaseIdempotencyKey(merchantID: String, key: String, owner: String?) async throws {
        try await write { transaction in
            if let owner {
                try await transaction.run(
                    "DELETE FROM idempotency_keys WHERE merchant_id = \(merchantID) AND key = \(key) AND state = \(unescaped: IdempotencyRecordState.inProgress.sqlLiteral) AND owner = \(owner)")
            } else {
                try await transaction.run("DELETE FROM idempotency_keys WHERE merchant_id = \(merchantID) AND key = \(key)")
            }
        }
    }

    public func purgeIdempotencyKeys(olderThan date: Date) async throws -> Int {
        let stamp = Timestamp.string(date)
        return try await write { transaction in
            try await transaction.run("DELETE FROM idempotency_keys WHERE created_at < \(stamp) RETURNING 1")
        }
    }

    public func idempotentResponsesToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws
        -> [SealedIdempotentResponse]
    {
        try await read { connection in
            try await connection.rows(
                """
                SELECT key, status_code, response_body, key_version FROM idempotency_keys
                WHERE merchant_id = \(merchantID) AND key_version < \(keyVersion) AND response_body IS NOT NULL LIMIT \(limit)
                """, logger: logger
            ).map { row in
                SealedIdempotentResponse(
                    key: try row.string("key"), status: try row.int("status_code"), sealedBody: try row.blob("response_body"),
                    keyVersion: try row.int("key_version"))
            }
        }
    }

    public func resealIdempotentResponses(merchantID: String, _ rows: [(old: SealedIdempotentResponse, new: SealedIdempotentResponse)]) async throws
        -> Int
    {
        let updates = rows.map { ($0.old.key, $0.old.keyVersion, $0.new.keyVersion, $0.new.sealedBody) }
        return try await write { transaction in
            var changed = 0
            for (key, oldVersion, newVersion, sealed) in updates {
                changed += try await transaction.run(
                    """
                    UPDATE idempotency_keys SET key_version = \(newVersion), response_body = \(bytea(sealed))
                    WHERE merchant_id = \(merchantID) AND key = \(key) AND key_version = \(oldVersion) AND response_body IS NOT NULL
                    RETURNING 1
                    """)
            }
            return changed
        }
    }

    public func legacyIdempotencyRows(limit: Int) async throws -> [LegacyIdempotencyRow] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT merchant_id, key, request_hash, status_code, response_body FROM idempotency_keys
                WHERE request_scheme = \(IdempotencyRequestScheme.legacyUnkeyed) LIMIT \(limit)
                """, logger: logger
            ).map { row in
                LegacyIdempotencyRow(
                    merchantID: try row.string("merchant_id"), key: try row.string("key"), requestHash: try row.blob("request_hash"),
                    status: try row.optionalInt("status_code"), body: try row.optionalBlob("response_body"))
            }
        }
    }

    public func upgradeLegacyIdempotencyRow(
        _ row: LegacyIdempotencyRow, requestMAC: [UInt8], sealedBody: [UInt8]?, keyVersion: Int?, secureCardID: String?
    ) async throws {
        try await write { transaction in
            try await transaction.run(
                """
                UPDATE idempotency_keys SET request_hash = \(bytea(requestMAC)), request_scheme = \(IdempotencyRequestScheme.macOfLegacyHash),
                    response_body = \(bytea(sealedBody)), key_version = \(keyVersion), secure_card_id = \(secureCardID)
                WHERE merchant_id = \(row.merchantID) AND key = \(row.key) AND request_scheme = \(IdempotencyRequestScheme.legacyUnkeyed)
                """)
        }
    }
}

extension PostgresWrite {
    /// Destroys the sealed responses that concern a purged card (as on SQLite).
    func shredIdempotentResponses(merchantID: String, secureCardID: String) async throws {
        try await run(
            """
            UPDATE idempotency_keys SET state = \(unescaped: IdempotencyRecordState.completed.sqlLiteral), request_hash = '\\x'::bytea, status_code = NULL, response_body = NULL, key_version = NULL
            WHERE merchant_id = \(merchantID) AND secure_card_id = \(secureCardID)
            """)
    }
}
