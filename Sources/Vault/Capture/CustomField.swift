/// A merchant-defined field on a secure card, e.g. `{"name": "ReferenceID", "value": "R-17"}`.
public struct CustomField: Codable, Sendable, Equatable {
    /// The field's name; must match one of the merchant's ``CustomFieldDefinition`` names exactly.
    public var name: String
    /// The field's value, at most the definition's `maxLength` characters.
    public var value: String

    /// Creates a custom field value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// One field a merchant allows on its secure cards (`PUT /v1/custom-fields`):
/// `{"name": "ReferenceID", "required": false, "maxLength": 64}`.
public struct CustomFieldDefinition: Codable, Sendable, Equatable {
    /// The field's name: 1-64 characters of `[A-Za-z0-9_.-]`, unique (case-sensitive) in the set.
    public var name: String
    /// Whether every card must carry the field with a non-empty value.
    public var required: Bool
    /// Longest value allowed, in characters, 1-1024.
    public var maxLength: Int

    /// Most definitions a merchant may have.
    public static let maximumCount = 100
    /// Longest field name.
    public static let maximumNameLength = 64
    /// Range allowed for ``maxLength``.
    public static let allowedMaxLengths = 1...1024

    /// Creates a definition; nothing is validated until ``validateDefinitions(_:)``.
    public init(name: String, required: Bool = false, maxLength: Int) {
        self.name = name
        self.required = required
        self.maxLength = maxLength
    }

    /// Validates a merchant's whole set of definitions.
    /// - Throws: ``CardDataError`` on `fields` (`too_many`), `fields[i].name` (`missing`,
    ///   `too_long`, `invalid_format`, `duplicate`, `card_number_not_allowed`) or
    ///   `fields[i].maxLength` (`out_of_range`).
    public static func validateDefinitions(_ definitions: [CustomFieldDefinition]) throws(CardDataError) {
        guard definitions.count <= maximumCount else {
            throw CardDataError(field: "fields", code: CardDataError.Code.tooMany,
                                message: "At most \(maximumCount) custom fields may be defined.")
        }
        var seen = Set<String>()
        for (index, definition) in definitions.enumerated() {
            let field = "fields[\(index)].name"
            try validateName(definition.name, field: field)
            guard seen.insert(definition.name).inserted else {
                throw CardDataError(field: field, code: CardDataError.Code.duplicate,
                                    message: "The custom field '\(definition.name)' is defined more than once.")
            }
            guard allowedMaxLengths.contains(definition.maxLength) else {
                throw CardDataError(field: "fields[\(index)].maxLength", code: CardDataError.Code.outOfRange,
                                    message: "maxLength must be between 1 and \(allowedMaxLengths.upperBound).")
            }
        }
    }

    static func validateName(_ name: String, field: String) throws(CardDataError) {
        let bytes = name.utf8
        guard !bytes.isEmpty else {
            throw CardDataError(field: field, code: CardDataError.Code.missing, message: "The field name is empty.")
        }
        guard bytes.count <= maximumNameLength else {
            throw CardDataError(field: field, code: CardDataError.Code.tooLong,
                                message: "The field name must be at most \(maximumNameLength) characters.")
        }
        guard bytes.allSatisfy(isNameByte) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidFormat,
                                message: "The field name may contain only letters, digits, '_', '.' and '-'.")
        }
        try CardNumberShape.refuse(name, field: field)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x2E, 0x2D: true
        default: false
        }
    }
}
