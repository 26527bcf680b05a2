/// Checks a card's custom fields against the merchant's definitions.
public enum CustomFieldValidation {
    /// Validates `fields` against `definitions`, reporting the first failure.
    ///
    /// Fields are checked in order, then the required definitions:
    /// - a value holding a card number: `card_number_not_allowed` on `customFields[i].value`, first,
    ///   so card data sent in the wrong place is named as such whatever else is wrong;
    /// - a name with no definition: `unknown_field` on `customFields[i].name`;
    /// - a name given twice: `duplicate` on `customFields[i].name`;
    /// - a value longer than the definition's `maxLength` characters: `too_long` on `customFields[i].value`;
    /// - a value with control characters: `invalid_format` on `customFields[i].value`;
    /// - a required field that is absent or empty: `required` on `customFields`, naming the field
    ///   in the message (custom field names are not sensitive).
    /// Names match exactly (case-sensitive). Lengths count characters (grapheme clusters).
    /// - Throws: ``CardDataError`` for the first failure.
    public static func validate(_ fields: [CustomField], against definitions: [CustomFieldDefinition]) throws(CardDataError) {
        var definitionsByName: [String: CustomFieldDefinition] = [:]
        for definition in definitions where definitionsByName[definition.name] == nil {
            definitionsByName[definition.name] = definition
        }
        var seen = Set<String>()
        var filled = Set<String>()
        for (index, field) in fields.enumerated() {
            let path = "customFields[\(index)]"
            try CardNumberShape.refuse(field.value, field: path + ".value")
            guard let definition = definitionsByName[field.name] else {
                throw CardDataError(field: path + ".name", code: CardDataError.Code.unknownField,
                                    message: unknownFieldMessage(field.name))
            }
            guard seen.insert(field.name).inserted else {
                throw CardDataError(field: path + ".name", code: CardDataError.Code.duplicate,
                                    message: "The custom field '\(field.name)' is given more than once.")
            }
            guard field.value.utf8.count <= definition.maxLength || field.value.count <= definition.maxLength else {
                throw CardDataError(field: path + ".value", code: CardDataError.Code.tooLong,
                                    message: "The custom field '\(field.name)' must be at most \(definition.maxLength) characters.")
            }
            guard !field.value.containsControlCharacters else {
                throw CardDataError(field: path + ".value", code: CardDataError.Code.invalidFormat,
                                    message: "The custom field '\(field.name)' contains control characters.")
            }
            if !field.value.isEmpty { filled.insert(field.name) }
        }
        for definition in definitions where definition.required && !filled.contains(definition.name) {
            throw CardDataError(field: "customFields", code: CardDataError.Code.required,
                                message: "The custom field '\(definition.name)' is required.")
        }
    }

    /// Names an unknown field only when it looks like a field name, so arbitrary client text
    /// (possibly card data pasted in the wrong place) never reaches a message.
    private static func unknownFieldMessage(_ name: String) -> String {
        let looksLikeName = (1...CustomFieldDefinition.maximumNameLength).contains(name.utf8.count)
            && name.utf8.allSatisfy { $0 < 0x80 && $0 > 0x20 && $0 != 0x27 }
            && name.utf8.filter(ASCII.isDigit).count < 6
        return looksLikeName ? "The custom field '\(name)' is not defined for this merchant."
            : "The custom field name is not defined for this merchant."
    }
}
