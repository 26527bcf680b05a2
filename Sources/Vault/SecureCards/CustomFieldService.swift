/// A merchant's custom field definitions: read, and replaced as one checked set with its
/// `custom_fields.replaced` audit event, in one write. `PUT /v1/custom-fields` and the console's
/// Settings screen both go through it, so a set either accepts is one the other accepts.
public struct CustomFieldService: Sendable {
    private let store: any CustomFieldStore

    /// A service over `store`.
    public init(store: any CustomFieldStore) {
        self.store = store
    }

    /// The merchant's definitions, in the order they were given.
    public func definitions(merchantID: String) async throws -> [CustomFieldDefinition] {
        try await store.customFieldDefinitions(merchantID: merchantID)
    }

    /// Replaces the merchant's definitions with `fields`, recorded under `actor`.
    /// - Throws: ``CardDataError`` from ``CustomFieldDefinition/validateDefinitions(_:)``; nothing changes.
    public func replace(_ fields: [CustomFieldDefinition], merchantID: String, actor: String) async throws {
        try CustomFieldDefinition.validateDefinitions(fields)
        try await store.replaceCustomFieldDefinitions(
            fields, merchantID: merchantID,
            audit: AuditEntry(merchantID: merchantID, actor: actor, action: "custom_fields.replaced", objectType: "custom_fields", objectID: merchantID,
                              details: ["names": fields.map(\.name).joined(separator: ",")]))
    }
}
