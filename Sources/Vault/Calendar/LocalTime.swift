/// A wall-clock time of day (hour and minute) with no date or zone: when a step is due locally.
///
/// Encodes as an `"HH:mm"` string; decodes from that string or from `{"hour": 9, "minute": 30}`.
public struct LocalTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The hour, 0...23.
    public let hour: Int
    /// The minute, 0...59.
    public let minute: Int

    /// Midnight, 00:00.
    public static let midnight = LocalTime(checkedHour: 0, minute: 0)

    /// A time of day; `nil` unless hour is 0...23 and minute 0...59.
    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.init(checkedHour: hour, minute: minute)
    }

    /// Parses strict `HH:mm` (24-hour, two digits each).
    public init?(iso text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":") else { return nil }
        let digits = [bytes[0], bytes[1], bytes[3], bytes[4]].map { Int($0) - Int(UInt8(ascii: "0")) }
        guard digits.allSatisfy({ (0...9).contains($0) }) else { return nil }
        self.init(hour: digits[0] * 10 + digits[1], minute: digits[2] * 10 + digits[3])
    }

    private init(checkedHour hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    /// Seconds after local midnight.
    public var secondsIntoDay: Int { hour * 3600 + minute * 60 }

    /// The time as `HH:mm`.
    public var iso: String {
        (hour < 10 ? "0" : "") + String(hour) + (minute < 10 ? ":0" : ":") + String(minute)
    }

    /// The time as `HH:mm`.
    public var description: String { iso }

    /// Orders times within a day.
    public static func < (lhs: LocalTime, rhs: LocalTime) -> Bool {
        lhs.secondsIntoDay < rhs.secondsIntoDay
    }
}

extension LocalTime: Codable {
    private enum CodingKeys: String, CodingKey {
        case hour, minute
    }

    /// Decodes `"HH:mm"` or `{"hour": H, "minute": M}` (minute defaults to 0 in the keyed form).
    ///
    /// - Throws: `DecodingError.dataCorrupted` for an invalid time.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer(), let text = try? container.decode(String.self) {
            guard let time = LocalTime(iso: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a time as HH:mm")
            }
            self = time
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let hour = try container.decode(Int.self, forKey: .hour)
        let minute = try container.decodeIfPresent(Int.self, forKey: .minute) ?? 0
        guard let time = LocalTime(hour: hour, minute: minute) else {
            throw DecodingError.dataCorruptedError(
                forKey: .hour, in: container, debugDescription: "hour must be 0-23 and minute 0-59")
        }
        self = time
    }

    /// Encodes the time as an `HH:mm` string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso)
    }
}
