/// A response field the contract always lists: written as `null` when absent instead of being left
/// out (what the synthesized `Encodable` of a plain optional does), so a client tells "none" from
/// "not sent" and every response type keeps its synthesized encoding.
@propertyWrapper
public struct ExplicitNull<Value: Encodable>: Encodable {
    /// The value, nil for `null`.
    public var wrappedValue: Value?

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    /// The value, or `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension ExplicitNull: Sendable where Value: Sendable {}
