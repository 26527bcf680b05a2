/// A calendar date without time or zone, as a day number (days since 1970-01-01, proleptic Gregorian).
///
/// Schedules, card expiry and statistics reason in dates, not instants: a monthly plan
/// falls "on the 31st" whatever the zone. Keeping the date as one integer makes
/// comparison, hashing and stepping by days plain integer arithmetic, and the
/// year/month/day view is computed on demand with Howard Hinnant's
/// `civil_from_days` (no Foundation `Calendar`, which is far slower).
///
/// Encodes and decodes as a `"yyyy-MM-dd"` string.
public struct CivilDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before it).
    public let dayNumber: Int32

    /// The earliest date a plan or an API string may name: 0001-01-01.
    public static let min = CivilDate(dayNumber: -719_162)
    /// The latest date a plan or an API string may name: 9999-12-31.
    public static let max = CivilDate(dayNumber: 2_932_896)
    /// The years a date built from components or parsed from text may have.
    public static let supportedYears = 1...9999

    /// Wraps a day number (days since 1970-01-01).
    @inlinable
    public init(dayNumber: Int32) {
        self.dayNumber = dayNumber
    }

    /// The date of a year, month and day; `nil` if that day does not exist or the year is outside 1...9999.
    public init?(year: Int, month: Int, day: Int) {
        guard Self.supportedYears.contains(year), (1...12).contains(month),
            day >= 1, day <= Self.daysInMonth(year: year, month: month)
        else { return nil }
        self.init(dayNumber: Int32(Self.dayNumber(year: year, month: month, day: day)))
    }

    /// Year, month and day from one conversion (use this in hot paths rather than the three properties).
    @inlinable
    public var components: (year: Int, month: Int, day: Int) {
        Self.civil(fromDayNumber: Int(dayNumber))
    }

    /// The year (1...9999 for dates made from API input).
    public var year: Int { components.year }
    /// The month, 1 (January) ... 12 (December).
    public var month: Int { components.month }
    /// The day of the month, 1 ... 31.
    public var day: Int { components.day }

    /// The day of the week: 0 Sunday, 1 Monday ... 6 Saturday (the numbering of weekly plans).
    @inlinable
    public var weekday: Int {
        let days = Int(dayNumber)
        // 1970-01-01 was a Thursday (4).
        return days >= -4 ? (days + 4) % 7 : (days + 5) % 7 + 6
    }

    /// The date `days` later (earlier when negative). Traps if the result leaves the `Int32` day range.
    @inlinable
    public func adding(days: Int) -> CivilDate {
        CivilDate(dayNumber: Int32(Int(dayNumber) + days))
    }

    /// The date `months` later (earlier when negative), its day clamped to the target month's last day
    /// (Jan 31 + 1 month = Feb 28 or 29).
    ///
    /// Clamping is not remembered: Jan 31 + 1 + 1 month is Mar 28. Plans step from their own day
    /// instead, so a Jan 31 monthly plan comes back to Mar 31.
    public func adding(months: Int) -> CivilDate {
        let (year, month, day) = components
        let index = year * 12 + (month - 1) + months
        let targetYear = index >= 0 ? index / 12 : (index - 11) / 12
        return Self.clamped(year: targetYear, month: index - targetYear * 12 + 1, day: day)
    }

    /// Orders dates by time.
    @inlinable
    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        lhs.dayNumber < rhs.dayNumber
    }

    /// The date as `yyyy-MM-dd`.
    public var description: String { iso }
}
