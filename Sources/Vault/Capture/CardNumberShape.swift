import Foundation

/// Finds card numbers in free text, so they are refused where text is stored in clear and masked
/// where text is logged.
///
/// A card-number-shaped run is 13 to 19 decimal digits that pass the Luhn check, written
/// together (`4111111111111111`) or in groups separated by single spaces or single dashes, the
/// same separator throughout, grouped as people type card numbers: in fours with a shorter last
/// group (`4111 1111 1111 1111`) or 4-6-5 / 4-6-4 (`3782-822463-10005`). Digits grouped otherwise
/// (`ld-1763942400-1-123`, a timestamp and counters) are not a card number. Runs are whole groups: a card number is found next to letters or
/// punctuation (`ref4111111111111111`, `card:4111 1111 1111 1111`) and among other numbers
/// written the same way (`qty 2 4111 1111 1111 1111`), but digits glued to it are part of it
/// (`41111111111111111` is one 17-digit run). Non-ASCII decimal digits (`４１１１…`) count as
/// digits.
///
/// About one in ten random 13-19-digit numbers passes Luhn, so a long order number or phone
/// number can be refused by chance; the error says why, and the value can be written otherwise.
public enum CardNumberShape {
    /// Fewest and most digits of a card number (ISO/IEC 7812).
    public static let digitCounts = 13...19

    /// The machine code of the refusal (422).
    public static let errorCode = "card_number_not_allowed"

    /// `true` when `text` contains a card-number-shaped run.
    public static func contains(_ text: some StringProtocol) -> Bool {
        !runs(in: String(text), stopAtFirst: true).isEmpty
    }

    /// The card-number-shaped runs of `text`, each from its first digit to its last, in order
    /// (runs found from different starting groups may overlap).
    public static func matches(in text: String) -> [Range<String.Index>] {
        runs(in: text, stopAtFirst: false).map { $0.digits.first!..<text.unicodeScalars.index(after: $0.digits.last!) }
    }

    /// `text` with the digits of every card-number-shaped run replaced by `*` except the first six
    /// and the last four (as `maskedNumber` shows a card): `4111 11** **** 1111`. Separators and
    /// everything else are kept. Text without such a run is returned unchanged.
    public static func masked(_ text: String) -> String {
        let found = runs(in: text, stopAtFirst: false)
        guard !found.isEmpty else { return text }
        var hidden = Set<String.Index>()
        for run in found where run.digits.count > 10 {
            hidden.formUnion(run.digits[6..<(run.digits.count - 4)])
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

    /// Refuses a free-text or reference value that holds a card number (SPEC §14): such fields
    /// are stored, listed and logged in clear, where a card number must never be.
    /// - Parameters:
    ///   - text: the value; `nil` passes.
    ///   - field: the request field, as the API names it (`description`, `customFields[0].value`).
    /// - Throws: ``CardDataError`` `card_number_not_allowed` on `field`; the message never repeats
    ///   the value.
    public static func refuse(_ text: (some StringProtocol)?, field: String) throws(CardDataError) {
        guard let text, contains(text) else { return }
        throw CardDataError(
            field: field, code: errorCode,
            message: "\(field) looks like it contains a card number; card numbers are accepted only as card data (card.number, track or emv).")
    }

    // MARK: - Scanning

    /// One run: the indices of its digits.
    private struct Run {
        var digits: [String.Index]
    }

    /// A maximal sequence of digits.
    private struct Group {
        var digitIndices: [String.Index]
        var values: [UInt8]
        /// The separator between this group and the next (a single space or dash), or nil when
        /// anything else (or nothing) follows.
        var joinsNext: Unicode.Scalar?
    }

    private static func runs(in text: String, stopAtFirst: Bool) -> [Run] {
        if !mayContainRun(text) { return [] }
        let groups = self.groups(in: text)
        var found: [Run] = []
        for start in groups.indices {
            var count = 0
            var end = start
            let separator = groups[start].joinsNext
            while end < groups.count {
                count += groups[end].values.count
                if count > digitCounts.upperBound { break }
                if digitCounts.contains(count), isCardGrouping(groups[start...end]), luhn(groups[start...end]) {
                    found.append(Run(digits: groups[start...end].flatMap(\.digitIndices)))
                    if stopAtFirst { return found }
                }
                guard let joint = groups[end].joinsNext, joint == separator else { break }
                end += 1
            }
        }
        return found
    }

    /// How people write card numbers: all together, in fours with a shorter last group
    /// (`4111 1111 1111 1111`, `6759 6498 2643 8453 123`), or 4-6-5 / 4-6-4 (American Express,
    /// Diners Club). Other groupings of a long digit run (`1763942400-1-123`, an order number
    /// with a counter) are not a card number typed by a person.
    private static func isCardGrouping(_ groups: ArraySlice<Group>) -> Bool {
        let sizes = groups.map(\.values.count)
        if sizes.count == 1 { return true }
        if sizes.count == 3, sizes[0] == 4, sizes[1] == 6, (4...5).contains(sizes[2]) { return true }
        return sizes.dropLast().allSatisfy { $0 == 4 } && (1...4).contains(sizes.last!)
    }

    private static func luhn(_ groups: ArraySlice<Group>) -> Bool {
        var sum = 0
        var double = false
        for group in groups.reversed() {
            for value in group.values.reversed() {
                var digit = Int(value)
                if double {
                    digit *= 2
                    if digit > 9 { digit -= 9 }
                }
                sum += digit
                double.toggle()
            }
        }
        return sum % 10 == 0
    }

    /// Cheap pre-check: ASCII text with fewer than 13 digits cannot hold a run.
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

    private static func groups(in text: String) -> [Group] {
        let scalars = text.unicodeScalars
        var groups: [Group] = []
        var current: Group?
        var pendingSeparator: Unicode.Scalar?
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if let value = digitValue(scalar) {
                if current == nil {
                    if var last = groups.popLast() {
                        last.joinsNext = pendingSeparator
                        groups.append(last)
                    }
                    current = Group(digitIndices: [], values: [], joinsNext: nil)
                }
                current!.digitIndices.append(index)
                current!.values.append(value)
                pendingSeparator = nil
            } else {
                if let group = current {
                    groups.append(group)
                    current = nil
                    pendingSeparator = (scalar == " " || scalar == "-") ? scalar : nil
                } else {
                    // A second non-digit in a row: the previous group joins nothing.
                    pendingSeparator = nil
                }
            }
            index = scalars.index(after: index)
        }
        if let group = current { groups.append(group) }
        return groups
    }

    private static func digitValue(_ scalar: Unicode.Scalar) -> UInt8? {
        if scalar.isASCII {
            let byte = UInt8(scalar.value)
            return ASCII.isDigit(byte) ? byte &- ASCII.zero : nil
        }
        guard scalar.properties.numericType == .decimal, let value = scalar.properties.numericValue, (0...9).contains(value) else { return nil }
        return UInt8(value)
    }
}
