public import Foundation
import PostgresNIO
public import Vault

extension PostgresStore: WebhookKeyStore {
    public func rotateWebhookKey(_ next: WrappedKey, windows: [WebhookSigningWindow], destroying: [Int], now: Date, audit: AuditEntry) async throws {
        let nowText = Timestamp.string(now)
        try await write { transaction in
            for version in destroying {
                try await transaction.run(
                    """
                    UPDATE merchant_keys SET wrapped_key = NULL, destroyed_at = \(nowText)
                    WHERE merchant_id = \(next.merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND version = \(version) AND wrapped_key IS NOT NULL
                    """)
            }
            for window in windows {
                try await transaction.run(
                    """
                    UPDATE merchant_keys SET signs_until = \(window.signsUntil.map(Timestamp.string)),
                        signs_until_binding = \(bytea(window.binding))
                    WHERE merchant_id = \(next.merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND version = \(window.version) AND wrapped_key IS NOT NULL
                    """)
            }
            try await Self.insertKey(next, on: transaction)
            try await transaction.appendAudit(audit)
        }
    }

    public func webhookSigningWindows(merchantID: String) async throws -> [WebhookSigningWindow] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT merchant_id, version, signs_until, signs_until_binding FROM merchant_keys
                WHERE merchant_id = \(merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND wrapped_key IS NOT NULL
                ORDER BY version DESC
                """, logger: logger
            ).map { try WebhookSigningWindow(storedRow: $0) }
        }
    }

    public func unboundWebhookSigningWindows(limit: Int) async throws -> [WebhookSigningWindow] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT merchant_id, version, signs_until, signs_until_binding FROM merchant_keys
                WHERE purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND wrapped_key IS NOT NULL AND signs_until IS NOT NULL AND signs_until_binding IS NULL
                ORDER BY merchant_id COLLATE "C", version LIMIT \(limit)
                """, logger: logger
            ).map { try WebhookSigningWindow(storedRow: $0) }
        }
    }

    public func bindWebhookSigningWindows(_ windows: [WebhookSigningWindow]) async throws {
        try await write { transaction in
            for window in windows {
                try await transaction.run(
                    """
                    UPDATE merchant_keys SET signs_until_binding = \(bytea(window.binding))
                    WHERE merchant_id = \(window.merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND version = \(window.version)
                        AND signs_until = \(window.signsUntil.map(Timestamp.string)) AND signs_until_binding IS NULL
                    """)
            }
        }
    }
}
