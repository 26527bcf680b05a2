public import Foundation
public import Vault

extension SQLiteStore: MerchantStore {
    public func createMerchant(
        _ merchant: Merchant, keys: [WrappedKey], sealedGatewayCredentials: [UInt8]?, apiKey: IssuedAPIKey, audit: AuditEntry
    ) async throws -> Int64 {
        try await database.write { connection in
            let sequence = try connection.queryOne("SELECT coalesce(max(seq), 0) + 1 AS next FROM merchants")?.int64("next") ?? 1
            do {
                try connection.run(
                    """
                    INSERT INTO merchants (id, seq, name, status, gateway, gateway_url, gateway_credentials, time_zone, callback_url,
                        verify_on_registration, created_at, updated_at, allow_credit, gateway_currency)
                    VALUES (\(merchant.id), \(sequence), \(merchant.name), \(merchant.status.rawValue), \(merchant.gateway.name),
                        \(merchant.gateway.url), \(sealedGatewayCredentials), \(merchant.timeZone), \(merchant.callbackURL),
                        \(merchant.verifyOnRegistration), \(Timestamp.string(merchant.createdAt)), \(Timestamp.string(merchant.updatedAt)),
                        \(merchant.allowsCredit), \(merchant.gateway.currency.code))
                    """)
            } catch let error as SQLiteError where error.isUniqueViolation {
                throw MerchantError.nameTaken(merchant.name)
            }
            for key in keys { try Self.insertKey(key, on: connection) }
            try Self.insertAPIKey(apiKey, on: connection)
            try connection.appendAudit(audit)
            return sequence
        }
    }

    public func updateMerchant(_ merchant: Merchant, sealedGatewayCredentials: [UInt8]?, audit: AuditEntry) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE merchants SET status = \(merchant.status.rawValue), gateway = \(merchant.gateway.name),
                    gateway_url = \(merchant.gateway.url), time_zone = \(merchant.timeZone), callback_url = \(merchant.callbackURL),
                    verify_on_registration = \(merchant.verifyOnRegistration), updated_at = \(Timestamp.string(merchant.updatedAt)),
                    gateway_credentials = coalesce(\(sealedGatewayCredentials), gateway_credentials),
                    allow_credit = \(merchant.allowsCredit), gateway_currency = \(merchant.gateway.currency.code)
                WHERE id = \(merchant.id)
                """)
            guard connection.changes == 1 else { throw MerchantError.notFound(merchant.name) }
            try connection.appendAudit(audit)
        }
    }

    public func merchant(id: String) async throws -> Merchant? {
        try await database.readOne("SELECT * FROM merchants WHERE id = \(id)").map(Self.merchant)
    }

    public func merchant(named name: String) async throws -> Merchant? {
        try await database.readOne("SELECT * FROM merchants WHERE name = \(name)").map(Self.merchant)
    }

    public func merchants() async throws -> [Merchant] {
        try await database.read { connection in
            try connection.query("SELECT * FROM merchants ORDER BY name").map(Self.merchant)
        }
    }

    public func sealedGatewayCredentials(merchantID: String) async throws -> [UInt8]? {
        try await database.readOne(
            """
            SELECT gateway_credentials FROM merchants WHERE id = \(merchantID)
            """)?.optionalBlob("gateway_credentials")
    }

    public func addAPIKey(_ key: IssuedAPIKey, audit: AuditEntry) async throws {
        try await database.write { connection in
            try Self.insertAPIKey(key, on: connection)
            try connection.appendAudit(audit)
        }
    }

    public func revokeAPIKey(id: String, merchantID: String, at date: Date, binding: [UInt8], audit: AuditEntry) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE api_keys SET revoked_at = \(Timestamp.string(date)), binding = \(binding)
                WHERE id = \(id) AND merchant_id = \(merchantID) AND revoked_at IS NULL
                """)
            guard connection.changes == 1 else { return false }
            try connection.appendAudit(audit)
            return true
        }
    }

    public func apiKeyCredential(id: String) async throws -> APIKeyCredential? {
        try await database.read { connection in
            guard let row = try connection.queryOne("SELECT * FROM api_keys WHERE id = \(id)") else { return nil }
            let key = try Self.apiKey(row)
            let merchantID = key.record.merchantID
            let merchantRow = try connection.queryOne(
                """
                SELECT m.*, d.definitions AS custom_field_definitions FROM merchants m
                LEFT JOIN custom_field_definitions d ON d.merchant_id = m.id WHERE m.id = \(merchantID)
                """)
            return APIKeyCredential(
                key: key, merchant: try merchantRow.map(Self.merchant),
                customFields: StoredCustomFieldDefinitions(merchantID: merchantID, text: try merchantRow?.optionalString("custom_field_definitions")))
        }
    }

    public func recordAPIKeyUse(id: String, at date: Date, unlessUsedSince notBefore: Date) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE api_keys SET last_used_at = \(Timestamp.string(date))
                WHERE id = \(id) AND (last_used_at IS NULL OR last_used_at < \(Timestamp.string(notBefore)))
                """)
        }
    }

    public func apiKeys(merchantID: String) async throws -> [StoredAPIKey] {
        try await database.read { connection in
            try connection.query("SELECT * FROM api_keys WHERE merchant_id = \(merchantID) ORDER BY created_at DESC, id").map(Self.apiKey)
        }
    }

    public func legacyAPIKeys(limit: Int) async throws -> [StoredAPIKey] {
        try await database.read { connection in
            try connection.query("SELECT * FROM api_keys WHERE secret_scheme = 0 ORDER BY id LIMIT \(limit)").map(Self.apiKey)
        }
    }

    public func bindLegacyAPIKeys(_ keys: [(id: String, secret: [UInt8], binding: [UInt8])]) async throws {
        try await database.write { connection in
            for key in keys {
                try connection.run(
                    """
                    UPDATE api_keys SET secret_hash = \(key.secret), binding = \(key.binding),
                        secret_scheme = \(StoredAPIKey.SecretScheme.bound.rawValue)
                    WHERE id = \(key.id) AND secret_scheme = \(StoredAPIKey.SecretScheme.legacySHA256.rawValue)
                    """)
            }
        }
    }

    static func insertAPIKey(_ key: IssuedAPIKey, on connection: SQLiteConnection) throws {
        try connection.run(
            """
            INSERT INTO api_keys (id, merchant_id, role, secret_hash, created_at, secret_scheme, binding, label, expires_at)
            VALUES (\(key.record.id), \(key.record.merchantID), \(key.record.role.rawValue), \(key.storedSecret),
                \(Timestamp.string(key.record.createdAt)), \(StoredAPIKey.SecretScheme.bound.rawValue), \(key.binding),
                \(key.record.label), \(key.record.expiresAt.map(Timestamp.string)))
            """)
    }

    static func merchant(_ row: SQLiteRow) throws -> Merchant {
        let stored = try row.table("merchants")
        var merchant = Merchant(
            id: stored.id, sequence: try row.int64("seq"), name: try row.string("name"),
            status: try stored.value(Merchant.Status.self, "status"),
            gateway: GatewaySettings(name: try row.string("gateway"), url: try row.optionalString("gateway_url"),
                                     currency: try stored.currency("gateway_currency")),
            timeZone: try row.string("time_zone"), callbackURL: try row.optionalString("callback_url"),
            verifyOnRegistration: try row.bool("verify_on_registration"),
            createdAt: try stored.instant("created_at"), updatedAt: try stored.instant("updated_at"))
        merchant.allowsCredit = try row.bool("allow_credit")
        return merchant
    }

    static func apiKey(_ row: SQLiteRow) throws -> StoredAPIKey {
        try StoredAPIKey(storedRow: row.table("api_keys"), prefix: "")
    }
}
