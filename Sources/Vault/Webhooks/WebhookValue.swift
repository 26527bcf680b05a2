/// A JSON value in a webhook event's `data` object.
///
/// Only what an event needs: no floating point (amounts are integer minor units), so the
/// body a receiver verifies is byte-for-byte what was signed on every platform.
public enum WebhookValue: Sendable, Equatable, Codable {
    /// A JSON string.
    case string(String)
    /// A JSON integer.
    case int(Int64)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// A JSON object.
    case object([String: WebhookValue])
    /// A JSON array.
    case array([WebhookValue])

    /// Decodes any JSON value but a non-integer number.
    /// - Throws: `DecodingError.dataCorrupted` for a fractional number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([WebhookValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: WebhookValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a webhook value (fractional numbers are not allowed)")
        }
    }

    /// Encodes the plain JSON value, without a wrapping case name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .object(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        }
    }
}

extension WebhookValue: ExpressibleByStringLiteral {
    /// A string value from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension WebhookValue: ExpressibleByIntegerLiteral {
    /// An integer value from a literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension WebhookValue: ExpressibleByBooleanLiteral {
    /// A boolean value from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension WebhookValue: ExpressibleByNilLiteral {
    /// `null` from `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension WebhookValue: ExpressibleByDictionaryLiteral {
    /// An object from a literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, WebhookValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension WebhookValue: ExpressibleByArrayLiteral {
    /// An array from a literal.
    public init(arrayLiteral elements: WebhookValue...) { self = .array(elements) }
}

extension WebhookValue {
    /// `.string(value)`, or `.null` when `value` is nil: for optional fields.
    public static func optional(_ value: String?) -> WebhookValue {
        value.map(WebhookValue.string) ?? .null
    }

    /// `.int(value)`, or `.null` when `value` is nil: for optional fields.
    public static func optional(_ value: Int64?) -> WebhookValue {
        value.map(WebhookValue.int) ?? .null
    }
}
