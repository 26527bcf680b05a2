/// Persistence of each merchant's custom-field definitions (the "CustomField list set at the Terminal").
public protocol CustomFieldStore: Sendable {
    /// The merchant's definitions, in the order they were given; empty when none were set.
    func customFieldDefinitions(merchantID: String) async throws -> [CustomFieldDefinition]
    /// Replaces the merchant's definitions.
    func replaceCustomFieldDefinitions(_ definitions: [CustomFieldDefinition], merchantID: String, audit: AuditEntry) async throws
}
