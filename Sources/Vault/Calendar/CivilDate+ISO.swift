/// The `yyyy-MM-dd` text form that the API, the database and the gateways' documents use.
extension CivilDate: Codable {
    /// Parses strict `yyyy-MM-dd`: exactly ten ASCII characters, a four-digit year 0001...9999,
    /// and a day that exists (`2027-02-29` is `nil`). No signs, spaces, times or zones.
    public init?(iso text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    /// The date as `yyyy-MM-dd` (years outside 0...9999 keep their sign and all digits).
    public var iso: String {
        let (year, month, day) = components
        var text = ""
        text.reserveCapacity(10)
        if year < 0 { text.append("-") }
        let yearDigits = String(year.magnitude)
        text.append(String(repeating: "0", count: Swift.max(0, 4 - yearDigits.count)))
        text.append(yearDigits)
        text.append(month < 10 ? "-0" : "-")
        text.append(String(month))
        text.append(day < 10 ? "-0" : "-")
        text.append(String(day))
        return text
    }

    /// Decodes a `yyyy-MM-dd` string.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a real date in that form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = CivilDate(iso: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a date as yyyy-MM-dd")
        }
        self = date
    }

    /// Encodes the date as a `yyyy-MM-dd` string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso)
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> CivilDate? {
        guard bytes.count == 10 else { return nil }
        let start = bytes.startIndex
        guard bytes[start + 4] == UInt8(ascii: "-"), bytes[start + 7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for offset in range {
                let digit = Int(bytes[start + offset]) - Int(UInt8(ascii: "0"))
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        return CivilDate(year: year, month: month, day: day)
    }
}
