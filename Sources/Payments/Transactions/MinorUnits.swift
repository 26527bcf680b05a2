/// Amounts in requests: whole numbers of minor units, within one bound shared by one-off
/// transactions and schedule steps.
public enum MinorUnits {
    /// Largest amount of one charge, in minor units.
    public static let maximum: Int64 = 99_999_999_999

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
