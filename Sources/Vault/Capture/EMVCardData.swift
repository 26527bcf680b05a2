/// The card data in an EMV chip's records: tags `5A` (PAN), `5F24` (expiry), `5F20`
/// (cardholder name) and `57` (track 2 equivalent data), found at any depth, e.g. inside
/// READ RECORD templates `70` or GPO response templates `77`.
///
/// The first occurrence of each tag counts. When both `5A` and `57` are present their PANs must
/// agree; when both `5F24` and `57` are present their expiry months must agree.
public struct EMVCardData: Sendable, Equatable {
    /// Tag of the application PAN, compressed numeric with trailing `F` padding.
    public static let panTag: UInt32 = 0x5A
    /// Tag of the application expiration date, YYMMDD in BCD.
    public static let expiryTag: UInt32 = 0x5F24
    /// Tag of the cardholder name, ASCII, `SURNAME/GIVEN` like track 1.
    public static let holderNameTag: UInt32 = 0x5F20
    /// Tag of track 2 equivalent data: PAN, `D` separator, YYMM, service code, discretionary, `F` padding.
    public static let track2EquivalentTag: UInt32 = 0x57
    static let field = "emv"

    /// The validated PAN.
    public let pan: PrimaryAccountNumber
    /// The expiry month.
    public let expiry: CardExpiry
    /// The holder name in reading order, when `5F20` is present and not blank.
    public let holderName: String?
    /// The service code from `57`, when present.
    public let serviceCode: String?

    /// Extracts and validates the card data from parsed TLV elements.
    /// - Throws: ``CardDataError`` on field `emv`: `invalid_emv` for missing or malformed tags,
    ///   or the PAN or expiry code (`luhn_check_failed`, `invalid_expiry`, ...).
    public init(elements: [BERTLV.Element]) throws(CardDataError) {
        let track2 = try BERTLV.first(Self.track2EquivalentTag, in: elements).map { element throws(CardDataError) in
            try Track2Equivalent(element.value)
        }
        var panDigits = track2?.pan
        if let element = BERTLV.first(Self.panTag, in: elements) {
            guard let digits = Self.compressedNumeric(element.value), !digits.isEmpty else {
                throw BERTLV.invalid("The EMV PAN (5A) is not a compressed numeric value.")
            }
            if let panDigits, panDigits != digits {
                throw BERTLV.invalid("The EMV PAN (5A) and track 2 equivalent data (57) disagree.")
            }
            panDigits = digits
        }
        guard let panDigits else {
            throw BERTLV.invalid("The EMV data has no PAN (tag 5A or 57).")
        }
        self.pan = try PrimaryAccountNumber(validating: panDigits, field: Self.field)

        var expiry = try track2.map { track2 throws(CardDataError) in
            try CardExpiry(yymm: track2.yymm, field: Self.field)
        }
        if let element = BERTLV.first(Self.expiryTag, in: elements) {
            let fromTag = try Self.expiry(yymmdd: element.value)
            if let expiry, expiry != fromTag {
                throw BERTLV.invalid("The EMV expiry (5F24) and track 2 equivalent data (57) disagree.")
            }
            expiry = fromTag
        }
        guard let expiry else {
            throw BERTLV.invalid("The EMV data has no expiry date (tag 5F24 or 57).")
        }
        self.expiry = expiry
        self.holderName = try BERTLV.first(Self.holderNameTag, in: elements).flatMap { element throws(CardDataError) in
            try Self.holderName(element.value)
        }
        self.serviceCode = track2?.serviceCode
    }

    /// Decodes compressed numeric (`cn`): BCD digits, left-justified, trailing `F` nibbles as padding.
    /// Returns `nil` for a non-decimal nibble or a digit after padding.
    static func compressedNumeric(_ bytes: [UInt8]) -> String? {
        var digits: [UInt8] = []
        var padded = false
        for nibble in nibbles(bytes) {
            if nibble == 0xF {
                padded = true
            } else if nibble <= 9, !padded {
                digits.append(nibble &+ ASCII.zero)
            } else {
                return nil
            }
        }
        return ASCII.string(digits)
    }

    static func nibbles(_ bytes: [UInt8]) -> [UInt8] {
        bytes.flatMap { [$0 >> 4, $0 & 0x0F] }
    }

    /// `5F24`: three BCD bytes YYMMDD; the day must be 01-31.
    static func expiry(yymmdd bytes: [UInt8]) throws(CardDataError) -> CardExpiry {
        let digits = nibbles(bytes)
        guard digits.count == 6, digits.allSatisfy({ $0 <= 9 }) else {
            throw BERTLV.invalid("The EMV expiry (5F24) is not a YYMMDD date.")
        }
        let day = Int(digits[4]) * 10 + Int(digits[5])
        guard (1...31).contains(day) else {
            throw BERTLV.invalid("The EMV expiry (5F24) has an impossible day.")
        }
        return try CardExpiry(yymm: ASCII.string(digits.prefix(4).map { $0 &+ ASCII.zero }), field: field)
    }

    /// `5F20`: printable ASCII, trailing spaces and NULs ignored; `nil` when blank.
    static func holderName(_ bytes: [UInt8]) throws(CardDataError) -> String? {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == 0x00 || bytes[end - 1] == ASCII.space { end -= 1 }
        let name = bytes[..<end]
        guard name.count <= 45, name.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw BERTLV.invalid("The EMV cardholder name (5F20) is not printable ASCII.")
        }
        return CardholderName.normalized(fromCardFormat: ASCII.string(name))
    }
}

/// Tag `57`: PAN, separator `D`, YYMM, service code, discretionary data, `F` padding.
struct Track2Equivalent: Sendable {
    let pan: String
    let yymm: String
    let serviceCode: String?

    init(_ bytes: [UInt8]) throws(CardDataError) {
        guard bytes.count <= 19 else { throw BERTLV.invalid("The EMV track 2 equivalent data (57) is too long.") }
        var nibbles = EMVCardData.nibbles(bytes)
        while nibbles.last == 0xF { nibbles.removeLast() }
        guard let separator = nibbles.firstIndex(of: 0xD) else {
            throw BERTLV.invalid("The EMV track 2 equivalent data (57) lacks its separator.")
        }
        let panNibbles = nibbles[..<separator]
        let rest = nibbles[(separator + 1)...]
        guard panNibbles.allSatisfy({ $0 <= 9 }), rest.allSatisfy({ $0 <= 9 }) else {
            throw BERTLV.invalid("The EMV track 2 equivalent data (57) is not numeric.")
        }
        guard rest.count >= 4 else {
            throw BERTLV.invalid("The EMV track 2 equivalent data (57) has no expiry date.")
        }
        pan = ASCII.string(panNibbles.map { $0 &+ ASCII.zero })
        yymm = ASCII.string(rest.prefix(4).map { $0 &+ ASCII.zero })
        let service = rest.dropFirst(4).prefix(3)
        serviceCode = service.count == 3 ? ASCII.string(service.map { $0 &+ ASCII.zero }) : nil
    }
}
