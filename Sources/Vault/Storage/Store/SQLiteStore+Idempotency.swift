public import Foundation

extension SQLiteStore: IdempotencyStore {
    public func claimIdempotencyKey(merchantID: String, key: String, requestHash: [UInt8], now: Date) async throws -> IdempotencyClaim {
        try await database.write { connection in
            if let row = try connection.queryOne(
                "SELECT * FROM idempotency_keys WHERE merchant_id = ? AND key = ?", [merchantID, key])
            {
                guard try row.blob("request_hash") == requestHash else { return .mismatch }
                guard try row.string("state") == "completed" else { return .inProgress }
                return .replay(status: try row.int("status_code"), body: try row.optionalBlob("response_body") ?? [])
            }
            try connection.run(
                "INSERT INTO idempotency_keys (merchant_id, key, request_hash, state, created_at) VALUES (?, ?, ?, 'in_progress', ?)",
                [merchantID, key, requestHash, Timestamp.string(now)])
            return .started
        }
    }

    public func completeIdempotentRequest(merchantID: String, key: String, status: Int, body: [UInt8]) async throws {
        try await database.write { connection in
            try connection.run(
                "UPDATE idempotency_keys SET state = 'completed', status_code = ?, response_body = ? WHERE merchant_id = ? AND key = ?",
                [status, body, merchantID, key])
        }
    }

    public func releaseIdempotencyKey(merchantID: String, key: String) async throws {
        try await database.write { connection in
            try connection.run("DELETE FROM idempotency_keys WHERE merchant_id = ? AND key = ?", [merchantID, key])
        }
    }

    public func purgeIdempotencyKeys(olderThan date: Date) async throws -> Int {
        try await database.write { connection in
            try connection.run("DELETE FROM idempotency_keys WHERE created_at < ?", [Timestamp.string(date)])
            return connection.changes
        }
    }
}
