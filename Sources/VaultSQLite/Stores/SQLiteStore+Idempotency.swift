public import Foundation
public import Vault

/// `idempotency_keys.request_scheme`: how `request_hash` was made.
enum IdempotencyRequestScheme {
    /// Unkeyed SHA-256 of the request, written before migration 11; upgraded at start-up.
    static let legacyUnkeyed = 0
    /// Keyed MAC of that old unkeyed SHA-256 (an upgraded legacy row).
    static let macOfLegacyHash = 1
    /// Keyed MAC of the request.
    static let mac = 2
}

extension SQLiteStore: IdempotencyStore {
    public func claimIdempotencyKey(
        merchantID: String, key: String, requestMAC: [UInt8], legacyRequestMAC: @escaping @Sendable () throws -> [UInt8],
        holder: IdempotencyClaimHolder, now: Date
    ) async throws -> IdempotencyClaim {
        try await database.write { connection in
            if let row = try connection.queryOne(
                "SELECT * FROM idempotency_keys WHERE merchant_id = \(merchantID) AND key = \(key)")
            {
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
                    return .inProgress  // not upgraded yet: the upgrade runs before anything is served
                }
                if completed, let sealed { return .replay(status: try row.int("status_code"), sealedBody: sealed) }
                if let expiresAt = try row.optionalString("expires_at"), expiresAt > Timestamp.string(now) { return .inProgress }
                let reserved = try row.optionalString("transaction_id") ?? holder.transactionID
                try connection.run(
                    """
                    UPDATE idempotency_keys SET owner = \(holder.owner), expires_at = \(Timestamp.string(holder.expiresAt)),
                        transaction_id = \(reserved)
                    WHERE merchant_id = \(merchantID) AND key = \(key)
                    """)
                return .takenOver(transactionID: reserved)
            }
            try connection.run(
                """
                INSERT INTO idempotency_keys (merchant_id, key, request_hash, request_scheme, state, created_at, owner, expires_at, transaction_id)
                VALUES (\(merchantID), \(key), \(requestMAC), \(IdempotencyRequestScheme.mac), \(unescaped: IdempotencyRecordState.inProgress.sqlLiteral), \(Timestamp.string(now)),
                    \(holder.owner), \(Timestamp.string(holder.expiresAt)), \(holder.transactionID))
                """)
            return .started
        }
    }

    @discardableResult
    public func completeIdempotentRequest(
        merchantID: String, key: String, owner: String, status: Int, sealedBody: [UInt8], keyVersion: Int, secureCardID: String?
    ) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE idempotency_keys SET state = \(unescaped: IdempotencyRecordState.completed.sqlLiteral), status_code = \(status), response_body = \(sealedBody),
                    key_version = \(keyVersion), secure_card_id = \(secureCardID), expires_at = NULL
                WHERE merchant_id = \(merchantID) AND key = \(key) AND state = \(unescaped: IdempotencyRecordState.inProgress.sqlLiteral) AND owner = \(owner)
                """)
            return connection.changes == 1
        }
    }

    public func releaseIdempotencyKey(merchantID: String, key: String, owner: String?) async throws {
        try await database.write { connection in
            if let owner {
                try connection.run(
                    "DELETE FROM idempotency_keys WHERE merchant_id = \(merchantID) AND key = \(key) AND state = \(unescaped: IdempotencyRecordState.inProgress.sqlLiteral) AND owner = \(owner)")
            } else {
                try connection.run("DELETE FROM idempotency_keys WHERE merchant_id = \(merchantID) AND key = \(key)")
            }
        }
    }

    public func purgeIdempotencyKeys(olderThan date: Date) async throws -> Int {
        try await database.write { connection in
            try connection.run("DELETE FROM idempotency_keys WHERE created_at < \(Timestamp.string(date))")
            return connection.changes
        }
    }

    public func idempotentResponsesToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws
        -> [SealedIdempotentResponse]
    {
        try await database.read { connection in
            try connection.query(
                """
                SELECT key, status_code, response_body, key_version FROM idempotency_keys
                WHERE merchant_id = \(merchantID) AND key_version < \(keyVersion) AND response_body IS NOT NULL LIMIT \(limit)
                """
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
        return try await database.write { connection in
            var changed = 0
            for (key, oldVersion, newVersion, sealed) in updates {
                try connection.run(
                    """
                    UPDATE idempotency_keys SET key_version = \(newVersion), response_body = \(sealed)
                    WHERE merchant_id = \(merchantID) AND key = \(key) AND key_version = \(oldVersion) AND response_body IS NOT NULL
                    """)
                changed += connection.changes
            }
            return changed
        }
    }

    public func legacyIdempotencyRows(limit: Int) async throws -> [LegacyIdempotencyRow] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT merchant_id, key, request_hash, status_code, response_body FROM idempotency_keys
                WHERE request_scheme = \(IdempotencyRequestScheme.legacyUnkeyed) LIMIT \(limit)
                """
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
        try await database.write { connection in
            try connection.run(
                """
                UPDATE idempotency_keys SET request_hash = \(requestMAC),
                    request_scheme = \(IdempotencyRequestScheme.macOfLegacyHash),
                    response_body = \(sealedBody), key_version = \(keyVersion), secure_card_id = \(secureCardID)
                WHERE merchant_id = \(row.merchantID) AND key = \(row.key)
                    AND request_scheme = \(IdempotencyRequestScheme.legacyUnkeyed)
                """)
        }
    }
}

extension SQLiteConnection {
    /// Destroys what the idempotency store keeps about a purged card: the stored responses that
    /// concern it and their request fingerprints. The rows stay (answering 409), so a retried key
    /// is never run a second time.
    func shredIdempotentResponses(merchantID: String, secureCardID: String) throws {
        try run(
            """
            UPDATE idempotency_keys SET state = \(unescaped: IdempotencyRecordState.completed.sqlLiteral), request_hash = X'', status_code = NULL, response_body = NULL, key_version = NULL
            WHERE merchant_id = \(merchantID) AND secure_card_id = \(secureCardID)
            """)
    }
}
