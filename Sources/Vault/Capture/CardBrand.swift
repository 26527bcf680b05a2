/// A card scheme, detected from the issuer identification number (IIN) at the start of the PAN.
///
/// IIN ranges used (first digits of the PAN):
///
/// | brand | IIN ranges | lengths |
/// | --- | --- | --- |
/// | visa | 4 | 13, 16, 19 |
/// | mastercard | 51-55, 2221-2720 | 16 |
/// | amex | 34, 37 | 15 |
/// | discover | 6011, 644-649, 65 | 16-19 |
/// | jcb | 3528-3589 | 16-19 |
/// | diners | 300-305, 3095, 36, 38-39 | 14-19 |
/// | unionpay | 62, 8100-8171 | 16-19 |
/// | maestro | 50, 56-58, 6304, 67 | 12-19 |
/// | mir | 2200-2204 | 16-19 |
///
/// The longest matching prefix wins, so a more specific range always beats a broader one.
/// Decision: 622126-622925 are UnionPay-issued cards that Discover merely accepts on its
/// network in some markets, so they are reported as `unionpay` (the issuer's brand), and the
/// Discover table does not list them.
public enum CardBrand: String, Codable, Sendable, CaseIterable {
    case visa, mastercard, amex, discover, jcb, diners, unionpay, maestro, mir

    /// The brand owning the PAN's IIN; the same as `pan.brand`.
    public static func detect(_ pan: PrimaryAccountNumber) -> CardBrand? {
        detect(leadingDigits: Array(pan.digits.utf8))
    }

    /// The brand owning the IIN at the start of `iin` (a BIN or a whole PAN), or `nil`
    /// when no supported brand matches or `iin` does not start with a digit.
    public static func detect(iin: String) -> CardBrand? {
        detect(leadingDigits: Array(iin.utf8.prefix(IINRange.longestPrefix)))
    }

    /// The PAN lengths the brand issues.
    public var allowedLengths: Set<Int> {
        switch self {
        case .visa: [13, 16, 19]
        case .mastercard: [16]
        case .amex: [15]
        case .discover, .jcb, .unionpay, .mir: Set(16...19)
        case .diners: Set(14...19)
        case .maestro: Set(12...19)
        }
    }

    /// The number of CVV digits printed on the card: 4 for American Express (CID), 3 otherwise.
    public var cvvLength: Int {
        self == .amex ? 4 : 3
    }

    /// The brand's name as cardholders know it, e.g. "American Express".
    public var displayName: String {
        switch self {
        case .visa: "Visa"
        case .mastercard: "Mastercard"
        case .amex: "American Express"
        case .discover: "Discover"
        case .jcb: "JCB"
        case .diners: "Diners Club"
        case .unionpay: "UnionPay"
        case .maestro: "Maestro"
        case .mir: "Mir"
        }
    }

    /// Longest-prefix match of the leading ASCII digits against the IIN table.
    static func detect(leadingDigits digits: [UInt8]) -> CardBrand? {
        var best: IINRange?
        for range in IINRange.table where range.matches(digits) {
            if range.prefixLength > (best?.prefixLength ?? 0) { best = range }
        }
        return best?.brand
    }
}

/// One row of the IIN table: PANs whose first `prefixLength` digits lie in `low...high`.
struct IINRange: Sendable {
    let brand: CardBrand
    let low: Int
    let high: Int
    let prefixLength: Int

    init(_ brand: CardBrand, _ low: Int, _ high: Int, digits: Int) {
        self.brand = brand
        self.low = low
        self.high = high
        self.prefixLength = digits
    }

    /// `true` when the first `prefixLength` bytes are digits forming a number within the range.
    func matches(_ digits: [UInt8]) -> Bool {
        guard digits.count >= prefixLength, let value = ASCII.integer(digits.prefix(prefixLength)) else {
            return false
        }
        return value >= low && value <= high
    }

    static let table: [IINRange] = [
        IINRange(.visa, 4, 4, digits: 1),
        IINRange(.mastercard, 51, 55, digits: 2),
        IINRange(.mastercard, 2221, 2720, digits: 4),
        IINRange(.amex, 34, 34, digits: 2),
        IINRange(.amex, 37, 37, digits: 2),
        IINRange(.discover, 6011, 6011, digits: 4),
        IINRange(.discover, 644, 649, digits: 3),
        IINRange(.discover, 65, 65, digits: 2),
        IINRange(.jcb, 3528, 3589, digits: 4),
        IINRange(.diners, 300, 305, digits: 3),
        IINRange(.diners, 3095, 3095, digits: 4),
        IINRange(.diners, 36, 36, digits: 2),
        IINRange(.diners, 38, 39, digits: 2),
        IINRange(.unionpay, 62, 62, digits: 2),
        IINRange(.unionpay, 8100, 8171, digits: 4),
        IINRange(.maestro, 50, 50, digits: 2),
        IINRange(.maestro, 56, 58, digits: 2),
        IINRange(.maestro, 6304, 6304, digits: 4),
        IINRange(.maestro, 67, 67, digits: 2),
        IINRange(.mir, 2200, 2204, digits: 4),
    ]

    static let longestPrefix = 6
}
