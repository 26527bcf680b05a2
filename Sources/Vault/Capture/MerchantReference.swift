/// The merchant's own key for a secure card: 1-64 characters of `[A-Za-z0-9._:-]`,
/// unique among the merchant's live cards. Encodes as a plain JSON string.
public struct MerchantReference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Longest reference accepted.
    public static let maximumLength = 64

    /// How the vault's secure-card tokens begin; no reference may.
    public static let tokenPrefix = "sc_"

    /// The reference text.
    public let value: String

    /// Validates a reference.
    /// - Throws: ``CardDataError`` on `merchantReference`: `missing` when empty, `too_long` past
    ///   64 characters, `invalid_format` for any character outside `[A-Za-z0-9._:-]`,
    ///   `card_number_not_allowed` for a card-number-shaped reference (``CardNumberShape``),
    ///   `reserved_prefix` for one that begins with `sc_` in any case (the vault's own tokens:
    ///   cards are found by reference or by token, so a reference shaped like another card's token
    ///   would shadow that card).
    public init(validating value: String) throws(CardDataError) {
        let bytes = value.utf8
        guard !bytes.isEmpty else {
            throw CardDataError(field: "merchantReference", code: CardDataError.Code.missing,
                                message: "The merchant reference is empty.")
        }
        guard bytes.allSatisfy(Self.isAllowed) else {
            throw CardDataError(field: "merchantReference", code: CardDataError.Code.invalidFormat,
                                message: "The merchant reference may contain only letters, digits, '.', '_', ':' and '-'.")
        }
        guard bytes.count <= Self.maximumLength else {
            throw CardDataError(field: "merchantReference", code: CardDataError.Code.tooLong,
                                message: "The merchant reference must be at most \(Self.maximumLength) characters.")
        }
        try CardNumberShape.refuse(value, field: "merchantReference")
        guard !value.lowercased().hasPrefix(Self.tokenPrefix) else {
            throw CardDataError(field: "merchantReference", code: "reserved_prefix",
                                message: "A merchant reference may not begin with '\(Self.tokenPrefix)': that is how the vault's card tokens begin.")
        }
        self.value = value
    }

    /// The reference itself.
    public var description: String { value }

    /// Decodes a JSON string and validates it, throwing ``CardDataError`` when invalid.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(validating: container.decode(String.self))
    }

    /// Encodes as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2E, 0x5F, 0x3A, 0x2D: true
        default: false
        }
    }
}
