public import Foundation
import PostgresNIO
public import Vault

extension PostgresStore: WebhookKeyStore {
    public func rotateWebhookKey(_ next: WrappedKey, previousSignUntil: Date, now: Date, audit: AuditEntry) async throws {
        let (until, nowText) = (Timestamp.string(previousSignUntil), Timestamp.string(now))
        try await write { transaction in
            try await transaction.run(
                """
                UPDATE merchant_keys SET wrapped_key = NULL, destroyed_at = \(nowText)
                WHERE merchant_id = \(next.merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND wrapped_key IS NOT NULL AND signs_until <= \(nowText)
                """)
            try await transaction.run(
                """
                UPDATE merchant_keys SET signs_until = \(until)
                WHERE merchant_id = \(next.merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND wrapped_key IS NOT NULL AND version < \(next.version)
                    AND (signs_until IS NULL OR signs_until > \(until))
                """)
            try await Self.insertKey(next, on: transaction)
            try await transaction.appendAudit(audit)
        }
    }

    public func webhookSigningVersions(merchantID: String, now: Date) async throws -> [Int] {
        let nowText = Timestamp.string(now)
        return try await read { connection in
            let rows = try await connection.rows(
                """
                SELECT version, signs_until FROM merchant_keys WHERE merchant_id = \(merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND wrapped_key IS NOT NULL
                ORDER BY version DESC
                """, logger: logger)
            var versions: [Int] = []
            for (index, row) in rows.enumerated() {
                let until = try row.optionalString("signs_until")
                if index == 0 || until.map({ $0 > nowText }) == true { versions.append(try row.int("version")) }
            }
            return versions
        }
    }
}
