/// Proleptic Gregorian rules and the day-number conversions (Howard Hinnant,
/// "chrono-Compatible Low-Level Date Algorithms"): a handful of integer
/// operations, valid for any year that fits the day range.
extension CivilDate {
    /// Whether `year` has a February 29 (divisible by 4, except centuries not divisible by 400).
    @inlinable
    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in `month` (1...12) of `year`: 28 to 31.
    @inlinable
    public static func daysInMonth(year: Int, month: Int) -> Int {
        precondition((1...12).contains(month), "month must be 1...12")
        if month == 2 { return isLeapYear(year) ? 29 : 28 }
        // 30 for April, June, September, November; 31 otherwise.
        return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31
    }

    /// The date of `day` in a month, where a day past the month's end (including 32,
    /// "last day" in monthly plans) falls on the month's last day; days below 1 count as 1.
    @inlinable
    public static func clamped(year: Int, month: Int, day: Int) -> CivilDate {
        let last = daysInMonth(year: year, month: month)
        let day = day > last ? last : (day < 1 ? 1 : day)
        return CivilDate(dayNumber: Int32(dayNumber(year: year, month: month, day: day)))
    }

    /// Days since 1970-01-01 of a year, month (1...12) and day; no range checks (`days_from_civil`).
    @inlinable
    public static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Year, month and day of a day number (`civil_from_days`).
    @inlinable
    public static func civil(fromDayNumber days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
