public import Foundation
import PostgresNIO
public import Vault

extension PostgresStore: MerchantStore {
    public func createMerchant(
        _ merchant: Merchant, keys: [WrappedKey], sealedGatewayCredentials: [UInt8]?, apiKey: IssuedAPIKey, audit: AuditEntry
    ) async throws -> Int64 {
        try await write { transaction in
            // Creations wait for each other here, so each reads the number the one before it took.
            try await transaction.run("SELECT pg_advisory_xact_lock(\(Self.merchantNumberingLock))")
            let sequence = try await transaction.row("SELECT coalesce(max(seq), 0) + 1 AS next FROM merchants")?.int64("next") ?? 1
            do {
                try await transaction.run(
                        """
                        INSERT INTO merchants (id, seq, name, status, gateway, gateway_url, gateway_credentials, time_zone, callback_url,
                            verify_on_registration, created_at, updated_at, allow_credit, gateway_currency)
                        VALUES (\(merchant.id), \(sequence), \(merchant.name), \(merchant.status.rawValue), \(merchant.gateway.name),
                            \(merchant.gateway.url), \(bytea(sealedGatewayCredentials)), \(merchant.timeZone), \(merchant.callbackURL),
                            \(merchant.verifyOnRegistration ? 1 : 0), \(Timestamp.string(merchant.createdAt)), \(Timestamp.string(merchant.updatedAt)),
                            \(merchant.allowsCredit ? 1 : 0), \(merchant.gateway.currency.code))
                        """)
            } catch let error where error.isPostgresUniqueViolation {
                throw MerchantError.nameTaken(merchant.name)
            }
            for key in keys { try await Self.insertKey(key, on: transaction) }
            try await Self.insertAPIKey(apiKey, on: transaction)
            try await transaction.appendAudit(audit)
            return sequence
        }
    }

    public func updateMerchant(_ merchant: Merchant, sealedGatewayCredentials: [UInt8]?, audit: AuditEntry) async throws {
        try await write { transaction in
            let changed = try await transaction.run(
                """
                UPDATE merchants SET status = \(merchant.status.rawValue), gateway = \(merchant.gateway.name), gateway_url = \(merchant.gateway.url),
                    time_zone = \(merchant.timeZone), callback_url = \(merchant.callbackURL),
                    verify_on_registration = \(merchant.verifyOnRegistration ? 1 : 0), updated_at = \(Timestamp.string(merchant.updatedAt)),
                    gateway_credentials = coalesce(\(bytea(sealedGatewayCredentials)), gateway_credentials), allow_credit = \(merchant.allowsCredit ? 1 : 0),
                    gateway_currency = \(merchant.gateway.currency.code)
                WHERE id = \(merchant.id)
                RETURNING 1
                """)
            guard changed == 1 else { throw MerchantError.notFound(merchant.name) }
            try await transaction.appendAudit(audit)
        }
    }

    public func merchant(id: String) async throws -> Merchant? {
        try await read { connection in
            try await connection.row("SELECT * FROM merchants WHERE id = \(id)", logger: logger).map(Self.merchant)
        }
    }

    public func merchant(named name: String) async throws -> Merchant? {
        try await read { connection in
            try await connection.row("SELECT * FROM merchants WHERE name = \(name)", logger: logger).map(Self.merchant)
        }
    }

    public func merchants() async throws -> [Merchant] {
        try await read { connection in
            try await connection.rows(#"SELECT * FROM merchants ORDER BY name COLLATE "C""#, logger: logger).map(Self.merchant)
        }
    }

    /// The transaction-scoped advisory lock that numbers new merchants one at a time.
    static let merchantNumberingLock: Int64 = 0x7661_756C_746D_6572

    public func sealedGatewayCredentials(merchantID: String) async throws -> [UInt8]? {
        try await read { connection in
            try await connection.row("SELECT gateway_credentials FROM merchants WHERE id = \(merchantID)", logger: logger)?
                .optionalBlob("gateway_credentials")
        }
    }

    public func addAPIKey(_ key: IssuedAPIKey, audit: AuditEntry) async throws {
        try await write { transaction in
            try await Self.insertAPIKey(key, on: transaction)
            try await transaction.appendAudit(audit)
        }
    }

    public func revokeAPIKey(id: String, merchantID: String, at date: Date, binding: [UInt8], audit: AuditEntry) async throws -> Bool {
        let stamp = Timestamp.string(date)
        return try await write { transaction in
            let changed = try await transaction.run(
                """
                UPDATE api_keys SET revoked_at = \(stamp), binding = \(bytea(binding))
                WHERE id = \(id) AND merchant_id = \(merchantID) AND revoked_at IS NULL RETURNING 1
                """)
            guard changed == 1 else { return false }
            try await transaction.appendAudit(audit)
            return true
        }
    }

    public func apiKeyCredential(id: String) async throws -> APIKeyCredential? {
        // Every authenticated request asks: one statement, the key, its merchant and the merchant's
        // custom-field definitions joined (the key's columns renamed, the merchant's as `merchant`
        // reads them), not a transaction of two and a registration's read of the definitions.
        try await readStatement { connection in
            guard let row = try await connection.row(
                prepared: """
                SELECT m.*, m.id IS NOT NULL AS has_merchant, k.id AS key_id, k.merchant_id AS key_merchant_id, k.role AS key_role,
                    k.secret_hash AS key_secret_hash, k.created_at AS key_created_at, k.revoked_at AS key_revoked_at,
                    k.secret_scheme AS key_secret_scheme, k.binding AS key_binding, k.label AS key_label,
                    k.expires_at AS key_expires_at, k.last_used_at AS key_last_used_at, d.definitions AS custom_field_definitions
                FROM api_keys k LEFT JOIN merchants m ON m.id = k.merchant_id
                    LEFT JOIN custom_field_definitions d ON d.merchant_id = m.id
                WHERE k.id = \(id)
                """, logger: logger)
            else { return nil }
            let key = try StoredAPIKey(storedRow: row.table("api_keys", idColumn: "key_id"), prefix: "key_")
            let merchant = try row.bool("has_merchant") ? try Self.merchant(row) : nil
            return APIKeyCredential(
                key: key, merchant: merchant,
                customFields: StoredCustomFieldDefinitions(merchantID: key.record.merchantID, text: try row.optionalString("custom_field_definitions")))
        }
    }

    public func recordAPIKeyUse(id: String, at date: Date, unlessUsedSince notBefore: Date) async throws {
        let (stamp, since) = (Timestamp.string(date), Timestamp.string(notBefore))
        try await write { transaction in
            _ = try await transaction.run(
                """
                UPDATE api_keys SET last_used_at = \(stamp)
                WHERE id = \(id) AND (last_used_at IS NULL OR last_used_at < \(since))
                """)
        }
    }

    public func apiKeys(merchantID: String) async throws -> [StoredAPIKey] {
        try await read { connection in
            try await connection.rows(
                #"SELECT * FROM api_keys WHERE merchant_id = \#(merchantID) ORDER BY created_at COLLATE "C" DESC, id COLLATE "C""#, logger: logger
            ).map(Self.apiKey)
        }
    }

    public func legacyAPIKeys(limit: Int) async throws -> [StoredAPIKey] {
        try await read { connection in
            try await connection.rows(
                #"SELECT * FROM api_keys WHERE secret_scheme = 0 ORDER BY id COLLATE "C" LIMIT \#(limit)"#, logger: logger
            ).map(Self.apiKey)
        }
    }

    public func bindLegacyAPIKeys(_ keys: [(id: String, secret: [UInt8], binding: [UInt8])]) async throws {
        try await write { transaction in
            for key in keys {
                try await transaction.run(
                    """
                    UPDATE api_keys SET secret_hash = \(bytea(key.secret)), binding = \(bytea(key.binding)),
                        secret_scheme = \(StoredAPIKey.SecretScheme.bound.rawValue)
                    WHERE id = \(key.id) AND secret_scheme = \(StoredAPIKey.SecretScheme.legacySHA256.rawValue)
                    """)
            }
        }
    }

    static func insertAPIKey(_ key: IssuedAPIKey, on transaction: PostgresWrite) async throws {
        try await transaction.run(
            """
            INSERT INTO api_keys (id, merchant_id, role, secret_hash, created_at, secret_scheme, binding, label, expires_at)
            VALUES (\(key.record.id), \(key.record.merchantID), \(key.record.role.rawValue), \(bytea(key.storedSecret)),
                \(Timestamp.string(key.record.createdAt)), \(StoredAPIKey.SecretScheme.bound.rawValue), \(bytea(key.binding)),
                \(key.record.label), \(key.record.expiresAt.map(Timestamp.string)))
            """)
    }

    static func merchant(_ row: PostgresRowReader) throws -> Merchant {
        let stored = try row.table("merchants")
        var merchant = Merchant(
            id: stored.id, sequence: try row.int64("seq"), name: try row.string("name"),
            status: try stored.value(Merchant.Status.self, "status"),
            gateway: GatewaySettings(name: try row.string("gateway"), url: try row.optionalString("gateway_url"),
                                     currency: try stored.currency("gateway_currency")),
            timeZone: try row.string("time_zone"), callbackURL: try row.optionalString("callback_url"),
            verifyOnRegistration: try row.int("verify_on_registration") != 0,
            createdAt: try stored.instant("created_at"), updatedAt: try stored.instant("updated_at"))
        merchant.allowsCredit = try row.int("allow_credit") != 0
        return merchant
    }

    static func apiKey(_ row: PostgresRowReader) throws -> StoredAPIKey {
        try StoredAPIKey(storedRow: row.table("api_keys"), prefix: "")
    }
}

extension PostgresStore: CustomFieldStore {
    public func customFieldDefinitions(merchantID: String) async throws -> [CustomFieldDefinition] {
        let text = try await readStatement { connection in
            try await connection.row(prepared: "SELECT definitions FROM custom_field_definitions WHERE merchant_id = \(merchantID)", logger: logger)?
                .string("definitions")
        }
        return try StoredCustomFieldDefinitions(merchantID: merchantID, text: text).definitions()
    }

    public func replaceCustomFieldDefinitions(_ definitions: [CustomFieldDefinition], merchantID: String, audit: AuditEntry) async throws {
        let json = try CustomFieldDefinition.storedText(definitions)
        let stamp = Timestamp.string(Date())
        try await write { transaction in
            try await transaction.run(
                """
                INSERT INTO custom_field_definitions (merchant_id, definitions, updated_at) VALUES (\(merchantID), \(json), \(stamp))
                ON CONFLICT (merchant_id) DO UPDATE SET definitions = excluded.definitions, updated_at = excluded.updated_at
                """)
            try await transaction.appendAudit(audit)
        }
    }
}
