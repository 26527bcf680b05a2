public import Foundation
public import Vault

extension SQLiteStore: WebhookKeyStore {
    public func rotateWebhookKey(_ next: WrappedKey, windows: [WebhookSigningWindow], destroying: [Int], now: Date, audit: AuditEntry) async throws {
        let nowText = Timestamp.string(now)
        try await database.write { connection in
            for version in destroying {
                try connection.run(
                    """
                    UPDATE merchant_keys SET wrapped_key = NULL, destroyed_at = \(nowText)
                    WHERE merchant_id = \(next.merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND version = \(version) AND wrapped_key IS NOT NULL
                    """)
            }
            for window in windows {
                try connection.run(
                    """
                    UPDATE merchant_keys SET signs_until = \(window.signsUntil.map(Timestamp.string)), signs_until_binding = \(window.binding)
                    WHERE merchant_id = \(next.merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND version = \(window.version) AND wrapped_key IS NOT NULL
                    """)
            }
            try Self.insertKey(next, on: connection)
            try connection.appendAudit(audit)
        }
    }

    public func webhookSigningWindows(merchantID: String) async throws -> [WebhookSigningWindow] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT merchant_id, version, signs_until, signs_until_binding FROM merchant_keys
                WHERE merchant_id = \(merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND wrapped_key IS NOT NULL
                ORDER BY version DESC
                """
            ).map { try WebhookSigningWindow(storedRow: $0) }
        }
    }

    public func unboundWebhookSigningWindows(limit: Int) async throws -> [WebhookSigningWindow] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT merchant_id, version, signs_until, signs_until_binding FROM merchant_keys
                WHERE purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND wrapped_key IS NOT NULL AND signs_until IS NOT NULL AND signs_until_binding IS NULL
                ORDER BY merchant_id, version LIMIT \(limit)
                """
            ).map { try WebhookSigningWindow(storedRow: $0) }
        }
    }

    public func bindWebhookSigningWindows(_ windows: [WebhookSigningWindow]) async throws {
        try await database.write { connection in
            for window in windows {
                try connection.run(
                    """
                    UPDATE merchant_keys SET signs_until_binding = \(window.binding)
                    WHERE merchant_id = \(window.merchantID) AND purpose = \(unescaped: KeyPurpose.webhook.sqlLiteral) AND version = \(window.version)
                        AND signs_until = \(window.signsUntil.map(Timestamp.string)) AND signs_until_binding IS NULL
                    """)
            }
        }
    }
}
