/// A card verification value (CVV2/CVC2/CID) as keyed by the cardholder.
///
/// It travels only to the gateway's verification call and is never stored or logged:
/// `description`, `debugDescription` and the reflection mirror are all `***`.
public struct CardVerificationValue: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The CVV digits. Sensitive: never log or store them.
    public let digits: String

    /// Validates a CVV for a brand: only digits, exactly `brand.cvvLength` of them.
    /// - Throws: ``CardDataError`` on field `card.cvv`: `missing` when empty, `invalid_cvv` otherwise.
    public init(validating value: String, brand: CardBrand) throws(CardDataError) {
        let bytes = Array(value.utf8.prefix(8))
        guard !bytes.isEmpty else {
            throw CardDataError(field: "card.cvv", code: CardDataError.Code.missing,
                                message: "The CVV is empty.")
        }
        guard bytes.allSatisfy(ASCII.isDigit), value.utf8.count == brand.cvvLength else {
            throw CardDataError(field: "card.cvv", code: CardDataError.Code.invalidCVV,
                                message: "The CVV must be exactly \(brand.cvvLength) digits for \(brand.displayName).")
        }
        self.digits = ASCII.string(bytes)
    }

    /// Always `***`.
    public var description: String { "***" }

    /// Always `CardVerificationValue(***)`.
    public var debugDescription: String { "CardVerificationValue(***)" }

    /// A mirror with no children, so `dump` cannot leak the CVV.
    public var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }
}
