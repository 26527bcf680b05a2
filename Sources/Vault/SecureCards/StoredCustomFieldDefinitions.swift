/// A merchant's custom-field definitions in their stored form, read with its API key when a request
/// is authenticated, so that a registration checks its fields against them without a read of its
/// own (on PostgreSQL, one round trip fewer). Read at the same point of the request as the
/// registration's own read would be: before its write, outside its transaction.
public struct StoredCustomFieldDefinitions: Sendable, Equatable {
    /// The merchant whose definitions these are.
    public let merchantID: String
    /// The stored text (`custom_field_definitions.definitions`), nil when none were ever set.
    public let text: String?

    /// The definitions of `merchantID` as stored in `text`.
    public init(merchantID: String, text: String?) {
        self.merchantID = merchantID
        self.text = text
    }

    /// The definitions, in the order they were given; empty when none were set.
    /// - Throws: `StoredRowError` when the stored text is not the stored form.
    public func definitions() throws -> [CustomFieldDefinition] {
        guard let text else { return [] }
        return try CustomFieldDefinition.fromStoredText(text, merchantID: merchantID)
    }
}
