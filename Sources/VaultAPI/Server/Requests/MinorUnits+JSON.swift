public import Payments

/// Amounts in request bodies: a whole JSON number of minor units; a fraction is a 422 on the field
/// (each request type names its own error), not a parse error.
extension MinorUnits {
    /// A fraction where minor units (a whole number) were expected.
    public struct FractionError: Error, Sendable {
        /// The JSON field.
        public var field: String
    }

    /// An amount in minor units: a whole JSON number; a fraction throws ``FractionError`` (a 422 on
    /// the field at the caller, not a parse error).
    public static func decode<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Int64? {
        guard container.contains(key), !(try container.decodeNil(forKey: key)) else { return nil }
        if let value = try? container.decode(Int64.self, forKey: key) { return value }
        if (try? container.decode(Double.self, forKey: key)) != nil { throw FractionError(field: key.stringValue) }
        return try container.decode(Int64.self, forKey: key)
    }

    /// The rule name and message of a fraction error.
    public static let fractionRule = "not_minor_units"

    /// The sentence for a fraction in `field`.
    public static func fractionMessage(_ field: String) -> String { "\(field) is in minor units: a whole number." }
}
