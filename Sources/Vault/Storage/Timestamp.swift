public import Foundation

/// Instants as the database and the API write them: RFC 3339 in UTC, rounded to the nearest millisecond.
///
/// Fixed-width text sorts in time order, so `ORDER BY created_at` is chronological.
public enum Timestamp {
    /// `2026-11-22T09:00:00.000Z` for `date`.
    public static func string(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        let msOfDay = Int(millis - days * 86_400_000)
        let (year, month, day) = CivilDate.civil(fromDayNumber: Int(days))
        guard (0...9999).contains(year) else {
            return pad(Int64(year), 4) + "-" + pad(Int64(month), 2) + "-" + pad(Int64(day), 2) + "T" + pad(Int64(msOfDay / 3_600_000), 2) + ":"
                + pad(Int64((msOfDay / 60_000) % 60), 2) + ":" + pad(Int64((msOfDay / 1000) % 60), 2) + "." + pad(Int64(msOfDay % 1000), 3) + "Z"
        }
        // One allocation and no intermediate strings: this runs several times per charge, on the writer thread too.
        return String(unsafeUninitializedCapacity: 24) { buffer in
            // A plain loop: `stride` costs more than the digits themselves in the unoptimized build.
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = value
                var index = offset + width - 1
                while index >= offset {
                    buffer[index] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                    rest /= 10
                    index -= 1
                }
            }
            put(year, 4, at: 0)
            buffer[4] = 0x2D
            put(month, 2, at: 5)
            buffer[7] = 0x2D
            put(day, 2, at: 8)
            buffer[10] = 0x54
            put(msOfDay / 3_600_000, 2, at: 11)
            buffer[13] = 0x3A
            put((msOfDay / 60_000) % 60, 2, at: 14)
            buffer[16] = 0x3A
            put((msOfDay / 1000) % 60, 2, at: 17)
            buffer[19] = 0x2E
            put(msOfDay % 1000, 3, at: 20)
            buffer[23] = 0x5A
            return 24
        }
    }

    /// Parses RFC 3339 instants (`Z` or a numeric offset, optional fractional seconds); nil when malformed.
    ///
    /// The vault's own fixed-width form (`2026-11-22T09:00:00.000Z`, every stored instant) is read
    /// with integer arithmetic; anything else goes through Foundation's formatter.
    public static func parse(_ text: String) -> Date? {
        if isFixedWidth(text) { return parseFixedWidth(text) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// Whether `text` has the shape of the fixed-width UTC form (then only that parser decides).
    static func isFixedWidth(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return (bytes.count == 24 || bytes.count == 20) && bytes[10] == 0x54 && bytes[bytes.count - 1] == 0x5A
    }

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ` or `yyyy-MM-ddTHH:mm:ssZ`.
    static func parseFixedWidth(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24 || bytes.count == 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A,
            bytes[16] == 0x3A, bytes[bytes.count - 1] == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 0x30
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), let date = CivilDate(year: year, month: month, day: day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var millis = 0
        if bytes.count == 24 {
            guard bytes[19] == 0x2E, let fraction = number(20..<23) else { return nil }
            millis = fraction
        }
        let seconds = Int64(date.dayNumber) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: Double(seconds) + Double(millis) / 1000)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
