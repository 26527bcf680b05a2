import Foundation

/// The one rule for what a card number looks like in free text: every field stored or shown in
/// clear refuses one, and every log line masks one.
///
/// The text is normalised first, so no encoding walks around the rule:
/// - every Unicode decimal digit, and every compatibility digit (full-width `４`, superscript `²`,
///   mathematical `𝟒`, circled `①`), counts as its value;
/// - everything between two digits that is not a letter is a separator and is dropped: spaces of
///   any kind (no-break, ideographic), dashes and dots, `_`, `:`, `/`, doubled or mixed, and
///   invisible format characters (zero-width space, Unicode TAG characters, the byte-order mark);
///   a letter ends a run of digits.
///
/// A run of digits then holds a card number when any 13- to 19-digit window of it starts with the
/// issuer identification number of a card brand, has a length that brand issues, and passes the
/// Luhn check: `0000` + a card number, a card number glued to an order counter, or one spread over
/// `4242.4242.4242.4242` are all found. The brand filter keeps timestamps and counters
/// (`ld-1763942400-1-123`) out; a long order number or phone number can still be refused by chance
/// (about one window in a hundred passes both checks), and the refusal says why.
public enum CardNumberShape {
    /// Fewest and most digits of a card number (ISO/IEC 7812).
    public static let digitCounts = 13...19

    /// The machine code of the refusal (422).
    public static let errorCode = "card_number_not_allowed"

    /// `true` when `text` contains a card number.
    public static func contains(_ text: some StringProtocol) -> Bool {
        !windows(in: String(text), stopAtFirst: true).isEmpty
    }

    /// The card numbers of `text`, each from its first digit to its last, in order (windows found
    /// from different starting digits may overlap).
    public static func matches(in text: String) -> [Range<String.Index>] {
        windows(in: text, stopAtFirst: false).map { $0.first!..<text.unicodeScalars.index(after: $0.last!) }
    }

    /// `text` with the digits of every card number replaced by `*` except the first six and the
    /// last four (as `maskedNumber` shows a card): `4111 11** **** 1111`. Separators and everything
    /// else are kept. Text without a card number is returned unchanged.
    public static func masked(_ text: String) -> String {
        let found = windows(in: text, stopAtFirst: false)
        guard !found.isEmpty else { return text }
        var hidden = Set<String.Index>()
        for window in found {
            hidden.formUnion(window[6..<(window.count - 4)])
        }
        var output = String.UnicodeScalarView()
        for index in text.unicodeScalars.indices {
            output.append(hidden.contains(index) ? "*" : text.unicodeScalars[index])
        }
        return String(output)
    }

    /// A request path (or query) for a log line: ``masked(_:)`` of the percent-decoded text when
    /// decoding reveals a card number (`/v1/secure-cards/4111%201111%201111%201111`), otherwise
    /// ``masked(_:)`` of the text as it came.
    public static func maskedURLPath(_ path: String) -> String {
        if path.contains("%") || path.contains("+"), let decoded = path.replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
            contains(decoded)
        {
            return masked(decoded)
        }
        return masked(path)
    }

    /// Refuses a free-text or reference value that holds a card number: such fields are stored,
    /// listed and logged in clear, where a card number must never be.
    /// - Parameters:
    ///   - text: the value; `nil` passes.
    ///   - field: the request field, as the API names it (`description`, `customFields[0].value`).
    /// - Throws: ``CardDataError`` `card_number_not_allowed` on `field`; the message never repeats
    ///   the value.
    public static func refuse(_ text: (some StringProtocol)?, field: String) throws(CardDataError) {
        guard let text, contains(text) else { return }
        throw CardDataError(
            field: field, code: errorCode,
            message: "\(field) looks like it contains a card number (digits separated by anything but letters count as one number); "
                + "card numbers are accepted only as card data (card.number, track or emv).")
    }

    // MARK: - Normalising

    /// What one Unicode scalar is to the rule.
    enum Role: Equatable {
        /// A digit of this value.
        case digit(UInt8)
        /// A letter (or a number that is not a digit): ends a run.
        case letter
        /// Anything else: dropped between digits.
        case separator
    }

    static func role(of scalar: Unicode.Scalar) -> Role {
        if scalar.isASCII {
            let byte = UInt8(scalar.value)
            if ASCII.isDigit(byte) { return .digit(byte &- ASCII.zero) }
            return ASCII.isLetter(byte) ? .letter : .separator
        }
        let properties = scalar.properties
        if properties.numericType == .decimal || properties.numericType == .digit,
            let value = properties.numericValue, value >= 0, value <= 9, value == value.rounded()
        {
            return .digit(UInt8(value))
        }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .letterNumber, .otherNumber:
            return .letter
        default:
            return .separator
        }
    }

    /// A run of digits with only separators between them: each digit's position and value.
    private struct Run {
        var indices: [String.Index] = []
        var values: [UInt8] = []
    }

    /// The windows holding a card number, each as the positions of its digits.
    private static func windows(in text: String, stopAtFirst: Bool) -> [[String.Index]] {
        if !mayContainRun(text) { return [] }
        var found: [[String.Index]] = []
        var run = Run()
        var index = text.unicodeScalars.startIndex
        let end = text.unicodeScalars.endIndex
        while index <= end {
            let role: Role = index < end ? role(of: text.unicodeScalars[index]) : .letter
            switch role {
            case .digit(let value):
                run.indices.append(index)
                run.values.append(value)
            case .separator:
                break
            case .letter:
                if run.values.count >= digitCounts.lowerBound {
                    found += cardNumbers(in: run, stopAtFirst: stopAtFirst)
                    if stopAtFirst, !found.isEmpty { return found }
                }
                run = Run()
            }
            if index == end { break }
            index = text.unicodeScalars.index(after: index)
        }
        return found
    }

    /// Every window of `run` that starts with a brand's IIN, has a length the brand issues, and
    /// passes the Luhn check.
    private static func cardNumbers(in run: Run, stopAtFirst: Bool) -> [[String.Index]] {
        var found: [[String.Index]] = []
        let ascii = run.values.map { $0 &+ ASCII.zero }
        for start in 0...(run.values.count - digitCounts.lowerBound) {
            guard let brand = CardBrand.detect(leadingDigits: Array(ascii[start..<min(ascii.count, start + IINRange.longestPrefix)])) else {
                continue
            }
            for length in digitCounts where start + length <= run.values.count && brand.allowedLengths.contains(length) {
                if luhn(run.values[start..<(start + length)]) {
                    found.append(Array(run.indices[start..<(start + length)]))
                    if stopAtFirst { return found }
                }
            }
        }
        return found
    }

    private static func luhn(_ digits: ArraySlice<UInt8>) -> Bool {
        var sum = 0
        var double = false
        for value in digits.reversed() {
            var digit = Int(value)
            if double {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
            double.toggle()
        }
        return sum % 10 == 0
    }

    /// Cheap pre-check: ASCII text with fewer than 13 digits cannot hold a card number.
    private static func mayContainRun(_ text: String) -> Bool {
        var digits = 0
        for byte in text.utf8 {
            if byte >= 0x80 { return true }
            if ASCII.isDigit(byte) {
                digits += 1
                if digits >= digitCounts.lowerBound { return true }
            }
        }
        return false
    }
}
