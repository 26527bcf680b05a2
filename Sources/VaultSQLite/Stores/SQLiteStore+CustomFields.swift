import Foundation
public import Vault

extension SQLiteStore: CustomFieldStore {
    public func customFieldDefinitions(merchantID: String) async throws -> [CustomFieldDefinition] {
        let text = try await database.readOne(
            """
            SELECT definitions FROM custom_field_definitions WHERE merchant_id = \(merchantID)
            """)?.string("definitions")
        return try StoredCustomFieldDefinitions(merchantID: merchantID, text: text).definitions()
    }

    public func replaceCustomFieldDefinitions(_ definitions: [CustomFieldDefinition], merchantID: String, audit: AuditEntry) async throws {
        let json = try CustomFieldDefinition.storedText(definitions)
        try await database.write { connection in
            try connection.run(
                """
                INSERT INTO custom_field_definitions (merchant_id, definitions, updated_at) VALUES (\(merchantID), \(json),
                    \(Timestamp.string(Date())))
                ON CONFLICT (merchant_id) DO UPDATE SET definitions = excluded.definitions, updated_at = excluded.updated_at
                """)
            try connection.appendAudit(audit)
        }
    }
}
