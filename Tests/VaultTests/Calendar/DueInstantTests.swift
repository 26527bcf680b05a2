import Foundation
import Testing
import Vault

@Suite struct DueInstantTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let zone: String
        let local: String
        let utc: String
        let why: String
        var testDescription: String { "\(zone) \(local) -> \(utc) (\(why))" }
    }

    @Test(arguments: [
        Case(zone: "America/New_York", local: "2027-03-14 02:30", utc: "2027-03-14T07:30:00Z", why: "spring-forward gap: 03:30 EDT"),
        Case(zone: "America/New_York", local: "2027-03-14 01:59", utc: "2027-03-14T06:59:00Z", why: "just before the gap, EST"),
        Case(zone: "America/New_York", local: "2027-03-14 03:00", utc: "2027-03-14T07:00:00Z", why: "gap end, EDT"),
        Case(zone: "America/New_York", local: "2027-11-07 01:30", utc: "2027-11-07T05:30:00Z", why: "fall-back overlap: first instant, EDT"),
        Case(zone: "America/New_York", local: "2027-11-07 02:30", utc: "2027-11-07T07:30:00Z", why: "after the overlap, EST"),
        Case(zone: "America/New_York", local: "2027-07-01 09:00", utc: "2027-07-01T13:00:00Z", why: "summer, EDT"),
        Case(zone: "America/New_York", local: "2027-01-15 09:00", utc: "2027-01-15T14:00:00Z", why: "winter, EST"),
        Case(zone: "Europe/London", local: "2027-03-28 01:30", utc: "2027-03-28T01:30:00Z", why: "spring-forward gap: 02:30 BST"),
        Case(zone: "Europe/London", local: "2027-03-28 02:30", utc: "2027-03-28T01:30:00Z", why: "after the gap, BST"),
        Case(zone: "Europe/London", local: "2027-10-31 01:30", utc: "2027-10-31T00:30:00Z", why: "fall-back overlap: first instant, BST"),
        Case(zone: "Europe/London", local: "2027-10-31 02:30", utc: "2027-10-31T02:30:00Z", why: "after the overlap, GMT"),
        Case(zone: "Asia/Kathmandu", local: "2027-05-01 09:00", utc: "2027-05-01T03:15:00Z", why: "+05:45"),
        Case(zone: "Asia/Kathmandu", local: "2027-01-01 00:00", utc: "2026-12-31T18:15:00Z", why: "+05:45 across the year"),
        Case(zone: "Australia/Lord_Howe", local: "2027-10-03 02:15", utc: "2027-10-02T15:45:00Z", why: "30-minute gap: 02:45 +11"),
        Case(zone: "Pacific/Apia", local: "2011-12-30 12:00", utc: "2011-12-30T22:00:00Z", why: "a skipped day moves forward 24 h"),
        Case(zone: "UTC", local: "2027-03-14 02:30", utc: "2027-03-14T02:30:00Z", why: "no transitions"),
    ])
    func localTimeBecomesTheExpectedInstant(_ example: Case) throws {
        let zone = try #require(TimeZone(identifier: example.zone))
        let date = try #require(CivilDate(iso: String(example.local.prefix(10))))
        let time = try #require(LocalTime(iso: String(example.local.suffix(5))))
        let expected = try #require(ISO8601DateFormatter().date(from: example.utc))
        #expect(DueInstant.instant(of: date, at: time, in: zone) == expected)
        var resolver = DueInstantResolver(zone: zone)
        #expect(resolver.instant(of: date, at: time) == expected)
    }

    @Test(arguments: [
        ("America/New_York", "2027-03-14T04:59:59Z", "2027-03-13"),
        ("America/New_York", "2027-03-14T05:00:00Z", "2027-03-14"),
        ("Asia/Kathmandu", "2027-01-01T18:14:59Z", "2027-01-01"),
        ("Asia/Kathmandu", "2027-01-01T18:15:00Z", "2027-01-02"),
        ("Pacific/Kiritimati", "2026-12-31T10:00:00Z", "2027-01-01"),
        ("Pacific/Pago_Pago", "1970-01-01T10:59:59Z", "1969-12-31"),
    ])
    func civilDateOfAnInstantIsReadOnTheZonesClock(zone: String, utc: String, expected: String) throws {
        let instant = try #require(ISO8601DateFormatter().date(from: utc))
        #expect(DueInstant.civilDate(of: instant, in: try #require(TimeZone(identifier: zone))).iso == expected)
    }

    /// The resolver's cached offset periods must give what the zone itself says, wherever
    /// transitions fall: DST both ways, 30-minute DST, a skipped day, standard-offset changes,
    /// DST suspended for Ramadan, DST abolished.
    @Test(arguments: [
        "America/New_York", "Europe/London", "Australia/Lord_Howe", "Pacific/Apia", "Europe/Moscow",
        "America/Sao_Paulo", "Asia/Kathmandu", "Pacific/Chatham", "Africa/Casablanca", "America/St_Johns",
    ])
    func resolverAgreesWithUncachedLookUpsDayByDay(zoneIdentifier: String) throws {
        let zone = try #require(TimeZone(identifier: zoneIdentifier))
        let first = try #require(CivilDate(iso: "2009-01-01"))
        let times = [LocalTime(hour: 0, minute: 0), LocalTime(hour: 1, minute: 30), LocalTime(hour: 2, minute: 30), LocalTime(hour: 23, minute: 45)]
            .compactMap { $0 }
        for time in times {
            var resolver = DueInstantResolver(zone: zone)
            var disagreements = 0
            for offset in 0..<(366 * 21) {
                let date = first.adding(days: offset)
                let cached = resolver.secondsSince1970(of: date, at: time)
                let expected = Self.uncachedSeconds(of: date, at: time, in: zone)
                if cached != expected {
                    disagreements += 1
                    if disagreements <= 3 { Issue.record("\(zoneIdentifier) \(date) \(time): \(cached) != \(expected)") }
                }
            }
            #expect(disagreements == 0)
        }
    }

    /// The rule written out with a zone look-up for every probe: offsets a day either side,
    /// valid readings, the earlier of two, or the pre-transition offset in a gap.
    static func uncachedSeconds(of date: CivilDate, at time: LocalTime, in zone: TimeZone) -> Int {
        func offset(_ seconds: Int) -> Int { zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))) }
        let local = Int(date.dayNumber) * 86_400 + time.secondsIntoDay
        let before = offset(local - 86_400)
        let after = offset(local + 86_400)
        let valid = [local - before, local - after].filter { $0 + offset($0) == local }
        return valid.min() ?? local - before
    }
}
