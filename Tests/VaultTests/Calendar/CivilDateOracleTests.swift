import Foundation
import Testing
import Vault

/// Foundation's `Calendar` as the oracle for every day from 1600 to 2400.
@Suite struct CivilDateOracleTests {
    @Test func everyDayFrom1600To2400MatchesFoundationsGregorianCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let first = try #require(calendar.date(from: DateComponents(year: 1600, month: 1, day: 1)))
        let last = try #require(calendar.date(from: DateComponents(year: 2400, month: 12, day: 31)))
        let firstDay = Int((first.timeIntervalSince1970 / 86_400).rounded())
        let lastDay = Int((last.timeIntervalSince1970 / 86_400).rounded())
        var mismatches = 0
        for dayNumber in firstDay...lastDay {
            let instant = Date(timeIntervalSince1970: Double(dayNumber) * 86_400)
            let expected = calendar.dateComponents([.year, .month, .day, .weekday], from: instant)
            let date = CivilDate(dayNumber: Int32(dayNumber))
            let (year, month, day) = date.components
            let roundTrip = CivilDate(year: year, month: month, day: day)
            if year != expected.year || month != expected.month || day != expected.day
                || date.weekday + 1 != expected.weekday || roundTrip != date
            {
                mismatches += 1
                if mismatches <= 5 {
                    Issue.record("day \(dayNumber): got \(date.iso) weekday \(date.weekday), Foundation \(expected)")
                }
            }
        }
        #expect(mismatches == 0)
        #expect(lastDay - firstDay + 1 == 292_560)
    }
}
