import Foundation
import Testing
import Vault

@Suite struct CivilDateTests {
    @Test func epochIsDayZeroAndAThursday() {
        let epoch = CivilDate(dayNumber: 0)
        #expect(epoch.components == (1970, 1, 1))
        #expect(epoch.weekday == 4)
        #expect(CivilDate(year: 1970, month: 1, day: 1) == epoch)
    }

    @Test(arguments: [
        ("2000-01-01", 6), ("2024-02-29", 4), ("2027-01-01", 5), ("2027-03-14", 0),
        ("1969-12-31", 3), ("1600-03-01", 3), ("0001-01-01", 1), ("9999-12-31", 5),
        ("2026-07-20", 1), ("1066-10-14", 0),
    ])
    func weekdayOfKnownDates(iso: String, weekday: Int) throws {
        let date = try #require(CivilDate(iso: iso))
        #expect(date.weekday == weekday)
    }

    @Test func minAndMaxAreTheSupportedYearsBounds() {
        #expect(CivilDate.min.iso == "0001-01-01")
        #expect(CivilDate.max.iso == "9999-12-31")
        #expect(CivilDate(year: 1, month: 1, day: 1) == .min)
        #expect(CivilDate(year: 9999, month: 12, day: 31) == .max)
    }

    @Test(arguments: [
        (2000, true), (1900, false), (2024, true), (2027, false), (2028, true), (2100, false), (2400, true), (1600, true),
    ])
    func leapYearsFollowTheGregorianRule(year: Int, isLeap: Bool) {
        #expect(CivilDate.isLeapYear(year) == isLeap)
    }

    @Test func daysInMonthOfALeapAndACommonYear() {
        #expect((1...12).map { CivilDate.daysInMonth(year: 2028, month: $0) } == [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
        #expect((1...12).map { CivilDate.daysInMonth(year: 2027, month: $0) } == [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    }

    @Test func clampedPutsDay32AndOverflowOnTheLastDay() {
        #expect(CivilDate.clamped(year: 2027, month: 2, day: 32).iso == "2027-02-28")
        #expect(CivilDate.clamped(year: 2028, month: 2, day: 30).iso == "2028-02-29")
        #expect(CivilDate.clamped(year: 2027, month: 4, day: 31).iso == "2027-04-30")
        #expect(CivilDate.clamped(year: 2027, month: 12, day: 32).iso == "2027-12-31")
        #expect(CivilDate.clamped(year: 2027, month: 6, day: 15).iso == "2027-06-15")
    }

    @Test(arguments: [
        (2027, 2, 29), (2027, 4, 31), (2027, 13, 1), (2027, 0, 1), (2027, 1, 0), (2027, 1, 32), (0, 1, 1), (10_000, 1, 1),
    ])
    func componentsOfNonexistentDaysGiveNil(year: Int, month: Int, day: Int) {
        #expect(CivilDate(year: year, month: month, day: day) == nil)
    }

    @Test(arguments: [
        "2027-1-01", "2027-01-1", "27-01-01", "2027/01/01", "2027-01-01T00:00", " 2027-01-01", "2027-02-29",
        "0000-01-01", "+207-01-01", "2027-00-10", "2027-01-32", "", "２０２７-01-01", "2027-0a-01",
    ])
    func strictISOParsingRejectsAnythingElse(text: String) {
        #expect(CivilDate(iso: text) == nil)
    }

    @Test(arguments: ["2027-01-01", "2028-02-29", "0001-01-01", "9999-12-31", "1999-12-31"])
    func isoRoundTrips(text: String) throws {
        #expect(try #require(CivilDate(iso: text)).iso == text)
    }

    @Test func codableUsesTheISOString() throws {
        let date = try #require(CivilDate(iso: "2027-03-14"))
        let json = try JSONEncoder().encode([date])
        #expect(String(decoding: json, as: UTF8.self) == #"["2027-03-14"]"#)
        #expect(try JSONDecoder().decode([CivilDate].self, from: json) == [date])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([CivilDate].self, from: Data(#"["2027-02-30"]"#.utf8))
        }
        #expect("\(date)" == "2027-03-14")
    }

    @Test func addingMonthsClampsToTheTargetMonth() throws {
        let jan31 = try #require(CivilDate(iso: "2027-01-31"))
        #expect(jan31.adding(months: 1).iso == "2027-02-28")
        #expect(jan31.adding(months: 13).iso == "2028-02-29")
        #expect(jan31.adding(months: 2).iso == "2027-03-31")
        #expect(jan31.adding(months: -2).iso == "2026-11-30")
        #expect(jan31.adding(months: -13).iso == "2025-12-31")
        #expect(jan31.adding(months: 0) == jan31)
    }

    @Test func addingDaysCrossesMonthsAndYears() throws {
        let date = try #require(CivilDate(iso: "2027-12-31"))
        #expect(date.adding(days: 1).iso == "2028-01-01")
        #expect(date.adding(days: 60).iso == "2028-02-29")
        #expect(date.adding(days: -365).iso == "2026-12-31")
    }

    @Test func todayIsTheDateOnTheZonesWallCalendar() throws {
        let instant = try #require(ISO8601DateFormatter().date(from: "2027-01-01T02:00:00Z"))
        #expect(CivilDate.today(in: try #require(TimeZone(identifier: "America/New_York")), now: instant).iso == "2026-12-31")
        #expect(CivilDate.today(in: try #require(TimeZone(identifier: "Asia/Tokyo")), now: instant).iso == "2027-01-01")
    }
}
