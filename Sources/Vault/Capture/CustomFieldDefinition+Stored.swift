import Foundation

extension CustomFieldDefinition {
    /// The stored form of a merchant's definitions (the `custom_field_definitions.definitions`
    /// column): a JSON array of `{"maxLength", "name", "required"}` objects. The names are fixed
    /// here, not taken from this type's coding keys, which are the API's: renaming an API field
    /// must not change what is stored nor make stored definitions unreadable.
    public static func storedText(_ definitions: [CustomFieldDefinition]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let stored = definitions.map { StoredDefinition(name: $0.name, required: $0.required, maxLength: $0.maxLength) }
        return String(decoding: try encoder.encode(stored), as: UTF8.self)
    }

    /// A merchant's definitions read from their stored form.
    ///
    /// - Throws: `StoredRowError` naming the merchant's row when the text is not that form (the
    ///   text itself is not echoed).
    public static func fromStoredText(_ text: String, merchantID: String) throws -> [CustomFieldDefinition] {
        guard let stored = try? JSONDecoder().decode([StoredDefinition].self, from: Data(text.utf8)) else {
            throw StoredRowError.unreadable(table: "custom_field_definitions", id: merchantID, column: "definitions", value: nil)
        }
        return stored.map { CustomFieldDefinition(name: $0.name, required: $0.required, maxLength: $0.maxLength) }
    }

    /// One definition as stored.
    private struct StoredDefinition: Codable {
        var name: String
        var required: Bool
        var maxLength: Int
    }
}
