public import Foundation

/// Instants as the database and the API write them: RFC 3339 in UTC with millisecond precision.
///
/// Fixed-width text sorts in time order, so `ORDER BY created_at` is chronological.
public enum Timestamp {
    /// `2026-11-22T09:00:00.000Z` for `date`.
    public static func string(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        let msOfDay = millis - days * 86_400_000
        let (year, month, day) = CivilDate.civil(fromDayNumber: Int(days))
        let hour = msOfDay / 3_600_000
        let minute = (msOfDay / 60_000) % 60
        let second = (msOfDay / 1000) % 60
        let ms = msOfDay % 1000
        return pad(Int64(year), 4) + "-" + pad(Int64(month), 2) + "-" + pad(Int64(day), 2) + "T" + pad(hour, 2) + ":" + pad(minute, 2)
            + ":" + pad(second, 2) + "." + pad(ms, 3) + "Z"
    }

    /// Parses RFC 3339 instants (`Z` or a numeric offset, optional fractional seconds); nil when malformed.
    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
