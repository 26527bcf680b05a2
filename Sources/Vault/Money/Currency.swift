/// An ISO 4217 currency that payments can be made in, with its minor-unit exponent.
///
/// Codes are upper case only (`USD`, never `usd`): the API rejects other spellings instead of
/// guessing. Fund codes (`BOV`, `CHE`, `CHW`, `CLF`, `COU`, `MXV`, `USN`, `UYI`, `UYW`),
/// precious metals, SDR and the testing/no-currency codes (`XTS`, `XXX`) are not currencies one
/// charges a card in and are rejected. Encodes as its code, a JSON string.
public struct Currency: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The three-letter ISO 4217 code, e.g. `USD`.
    public let code: String
    /// Digits after the decimal point in the currency's minor unit: 0 (JPY), 2 (USD), 3 (KWD).
    public let minorUnitExponent: Int

    /// Looks up a currency by its code.
    /// - Throws: ``CardDataError`` `unknown_currency` on field `currency` for anything but a
    ///   known upper-case code.
    public init(code: String) throws(CardDataError) {
        guard code.utf8.count == 3, let exponent = Currency.exponents[code] else {
            let lowercase = code.utf8.count == 3 && Currency.exponents[code.uppercased()] != nil
            throw CardDataError(
                field: "currency", code: CardDataError.Code.unknownCurrency,
                message: lowercase ? "Currency codes are upper case, as in ISO 4217 (e.g. USD)."
                    : "The currency is not a known ISO 4217 currency code.")
        }
        self.code = code
        self.minorUnitExponent = exponent
    }

    /// The code.
    public var description: String { code }

    /// Every supported currency, sorted by code.
    public static var all: [Currency] {
        exponents.keys.sorted().map { Currency(known: $0) }
    }

    private init(known code: String) {
        self.code = code
        self.minorUnitExponent = Currency.exponents[code] ?? 2
    }

    /// Decodes a JSON string code and validates it, throwing ``CardDataError`` when unknown.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(code: container.decode(String.self))
    }

    /// Encodes the code as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}
