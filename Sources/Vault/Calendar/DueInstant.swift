public import Foundation

/// Conversions between civil dates with a wall-clock time and instants, in an IANA time zone.
///
/// This is the only place plans meet Foundation's `TimeZone`: the date arithmetic itself is
/// `CivilDate`'s, and only "local date at hour:minute" becomes an instant (a step's `dueAt`).
public enum DueInstant {
    /// The instant of local date+time in `zone`; a time inside a DST gap moves forward by the gap (02:30 on a spring-forward day in New York -> 03:30 EDT); an ambiguous time in an overlap takes the first (earlier) instant.
    ///
    /// To resolve many dates of one zone in increasing order, keep a `DueInstantResolver` instead:
    /// it caches the zone's current offset period.
    public static func instant(of date: CivilDate, at time: LocalTime, in zone: TimeZone) -> Date {
        var resolver = DueInstantResolver(zone: zone)
        return resolver.instant(of: date, at: time)
    }

    /// The civil date of an instant in a zone.
    public static func civilDate(of instant: Date, in zone: TimeZone) -> CivilDate {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down))
        let local = seconds + zone.secondsFromGMT(for: instant)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        return CivilDate(dayNumber: Int32(days))
    }
}

extension CivilDate {
    /// Today's date in `timeZone` (the date a person there would read on a wall calendar at `now`).
    public static func today(in timeZone: TimeZone, now: Date = Date()) -> CivilDate {
        DueInstant.civilDate(of: now, in: timeZone)
    }
}
