/// A validated primary account number (card number): digits only, Luhn-valid, of a known
/// brand and a length that brand issues.
///
/// Deliberately not `Codable` and never printed: `description`, `debugDescription` and the
/// reflection mirror (`dump`, `print`, string interpolation) all show ``masked`` instead.
/// Code that must store or transmit the number reads ``digits`` explicitly.
public struct PrimaryAccountNumber: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Shortest PAN accepted by ISO/IEC 7812 and any brand here.
    public static let minimumLength = 12
    /// Longest PAN allowed by ISO/IEC 7812.
    public static let maximumLength = 19

    /// The card number, ASCII digits only. Sensitive: never log it.
    public let digits: String
    /// The brand detected from the IIN.
    public let brand: CardBrand

    /// Validates a card number as typed or read.
    ///
    /// Spaces and dashes are removed first; then, in order: only digits (`invalid_number`),
    /// 12-19 digits (`invalid_length`), Luhn (`luhn_check_failed`), a known IIN
    /// (`unknown_brand`), a length the brand issues (`invalid_length`).
    /// - Parameters:
    ///   - digits: The number; may contain spaces and dashes.
    ///   - field: The request field named in errors.
    /// - Throws: ``CardDataError`` naming `field`; an empty number is `missing`.
    public init(validating digits: String, field: String = "card.number") throws(CardDataError) {
        let raw = digits.utf8
        guard raw.count <= 64 else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidLength,
                                message: "The card number is too long.")
        }
        let bytes = raw.filter { $0 != ASCII.space && $0 != ASCII.dash }
        guard !bytes.isEmpty else {
            throw CardDataError(field: field, code: CardDataError.Code.missing,
                                message: "The card number is missing.")
        }
        guard bytes.allSatisfy(ASCII.isDigit) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidNumber,
                                message: "The card number may contain only digits, spaces and dashes.")
        }
        guard (Self.minimumLength...Self.maximumLength).contains(bytes.count) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidLength,
                                message: "The card number must have 12 to 19 digits.")
        }
        guard Luhn.isValid(bytes: bytes) else {
            throw CardDataError(field: field, code: CardDataError.Code.luhnCheckFailed,
                                message: "The card number is not valid (Luhn check failed).")
        }
        guard let brand = CardBrand.detect(leadingDigits: bytes) else {
            throw CardDataError(field: field, code: CardDataError.Code.unknownBrand,
                                message: "The card number does not belong to a supported card brand.")
        }
        guard brand.allowedLengths.contains(bytes.count) else {
            throw CardDataError(field: field, code: CardDataError.Code.invalidLength,
                                message: "The card number has the wrong number of digits for \(brand.displayName).")
        }
        self.digits = ASCII.string(bytes)
        self.brand = brand
    }

    /// The bank identification number: the first six digits.
    public var bin: String { String(digits.prefix(6)) }

    /// The last four digits.
    public var last4: String { String(digits.suffix(4)) }

    /// First six and last four digits with `*` between, as long as the number: `411111******1111`.
    public var masked: String {
        bin + String(repeating: "*", count: max(0, digits.utf8.count - 10)) + last4
    }

    /// The masked number; never the digits.
    public var description: String { masked }

    /// The masked number; never the digits.
    public var debugDescription: String { "PrimaryAccountNumber(\(masked), \(brand.rawValue))" }

    /// A mirror that shows only the masked number, so `dump` cannot leak the PAN.
    public var customMirror: Mirror {
        Mirror(self, children: ["masked": masked, "brand": brand], displayStyle: .struct)
    }
}
