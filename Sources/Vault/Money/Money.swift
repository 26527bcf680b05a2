/// An amount in integer minor units of a currency (cents for USD, yen for JPY, fils for KWD).
public struct Money: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The amount in minor units; may be negative (e.g. a refund shown as a debit).
    public let minorUnits: Int64
    /// The currency.
    public let currency: Currency

    /// Creates an amount from minor units.
    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// The amount as a decimal string and the code: `12.34 USD`, `1000 JPY`, `1.234 KWD`,
    /// `-0.05 EUR`. Computed from integers only, never through floating point.
    public func formatted() -> String {
        "\(decimalString) \(currency.code)"
    }

    /// The amount as a plain decimal with exactly the currency's number of fraction digits: `12.34`.
    public var decimalString: String {
        let magnitude = String(minorUnits.magnitude)
        let exponent = currency.minorUnitExponent
        let sign = minorUnits < 0 ? "-" : ""
        guard exponent > 0 else { return sign + magnitude }
        let padded = String(repeating: "0", count: max(0, exponent + 1 - magnitude.count)) + magnitude
        let whole = padded.dropLast(exponent)
        let fraction = padded.suffix(exponent)
        return sign + String(whole) + "." + String(fraction)
    }

    /// Same as ``formatted()``.
    public var description: String { formatted() }
}
