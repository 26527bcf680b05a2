public import Foundation

/// Resolves local dates and times of one zone to instants, with the rules of `DueInstant`
/// (gaps move forward, overlaps take the first instant).
///
/// A zone look-up costs hundreds of nanoseconds on Linux, so the resolver remembers the
/// period in which the zone's offset is constant (from the last look-up to the zone's next
/// transition). Expanding a plan resolves dates in increasing order, so nearly every step
/// falls inside the remembered period and needs no look-up at all. Any order is still correct;
/// decreasing dates only cost more look-ups.
public struct DueInstantResolver: Sendable {
    /// The zone whose wall clock the dates and times are read on.
    public let zone: TimeZone

    private var periodStart = Int.max
    private var periodEnd = Int.min
    private var periodOffset = 0

    /// A resolver for local times in `zone`.
    public init(zone: TimeZone) {
        self.zone = zone
    }

    /// The instant of `date` at `time` on this zone's wall clock.
    public mutating func instant(of date: CivilDate, at time: LocalTime) -> Date {
        Date(timeIntervalSince1970: Double(secondsSince1970(of: date, at: time)))
    }

    /// The instant of `date` at `time` on this zone's wall clock, as whole seconds since 1970-01-01T00:00Z.
    public mutating func secondsSince1970(of date: CivilDate, at time: LocalTime) -> Int {
        let local = Int(date.dayNumber) * 86_400 + time.secondsIntoDay
        // Every real offset is within ±14 h, so the offsets a day either side of the wall-clock
        // reading bracket any transition that could make it ambiguous or skipped.
        let offsetBefore = offset(at: local - 86_400)
        let offsetAfter = offset(at: local + 86_400)
        let withOffsetBefore = local - offsetBefore
        if offsetBefore == offsetAfter { return withOffsetBefore }
        let withOffsetAfter = local - offsetAfter
        let beforeHolds = offset(at: withOffsetBefore) == offsetBefore
        let afterHolds = offset(at: withOffsetAfter) == offsetAfter
        if beforeHolds && afterHolds {
            // Overlap (clocks went back): the wall-clock time happens twice; take the first.
            return Swift.min(withOffsetBefore, withOffsetAfter)
        }
        if afterHolds && !beforeHolds { return withOffsetAfter }
        // Either only the earlier offset holds, or neither does: a gap (clocks went forward).
        // Reading the time with the offset in force before the gap moves it forward by the gap.
        return withOffsetBefore
    }

    private mutating func offset(at seconds: Int) -> Int {
        if seconds >= periodStart && seconds < periodEnd { return periodOffset }
        let instant = Date(timeIntervalSince1970: Double(seconds))
        periodOffset = zone.secondsFromGMT(for: instant)
        periodStart = seconds
        if let transition = zone.nextDaylightSavingTimeTransition(after: instant) {
            periodEnd = Int(transition.timeIntervalSince1970.rounded(.down))
        } else {
            periodEnd = Int.max
        }
        return periodOffset
    }
}
