public import Foundation
public import Vault

extension SQLiteStore: WebhookKeyStore {
    public func rotateWebhookKey(_ next: WrappedKey, previousSignUntil: Date, now: Date, audit: AuditEntry) async throws {
        let (until, nowText) = (Timestamp.string(previousSignUntil), Timestamp.string(now))
        try await database.write { connection in
            try connection.run(
                """
                UPDATE merchant_keys SET wrapped_key = NULL, destroyed_at = \(nowText)
                WHERE merchant_id = \(next.merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND wrapped_key IS NOT NULL AND signs_until <= \(nowText)
                """)
            try connection.run(
                """
                UPDATE merchant_keys SET signs_until = \(until)
                WHERE merchant_id = \(next.merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND wrapped_key IS NOT NULL AND version < \(next.version)
                    AND (signs_until IS NULL OR signs_until > \(until))
                """)
            try Self.insertKey(next, on: connection)
            try connection.appendAudit(audit)
        }
    }

    public func webhookSigningVersions(merchantID: String, now: Date) async throws -> [Int] {
        let nowText = Timestamp.string(now)
        return try await database.read { connection in
            let rows = try connection.query(
                """
                SELECT version, signs_until FROM merchant_keys WHERE merchant_id = \(merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND wrapped_key IS NOT NULL
                ORDER BY version DESC
                """)
            var versions: [Int] = []
            for (index, row) in rows.enumerated() {
                let until = try row.optionalString("signs_until")
                if index == 0 || until.map({ $0 > nowText }) == true { versions.append(try row.int("version")) }
            }
            return versions
        }
    }
}
