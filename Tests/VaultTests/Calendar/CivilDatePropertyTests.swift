import PropertyBased
import Testing
import Vault

@Suite struct CivilDatePropertyTests {
    static let dayNumbers = Gen.int(in: Int(CivilDate.min.dayNumber)...Int(CivilDate.max.dayNumber))

    @Test func dayNumberAndComponentsRoundTrip() async {
        await propertyCheck(count: 2000, input: Self.dayNumbers) { dayNumber in
            let date = CivilDate(dayNumber: Int32(dayNumber))
            let (year, month, day) = date.components
            #expect(CivilDate.supportedYears.contains(year))
            #expect((1...12).contains(month))
            #expect((1...CivilDate.daysInMonth(year: year, month: month)).contains(day))
            #expect(CivilDate(year: year, month: month, day: day) == date)
            #expect(CivilDate(iso: date.iso) == date)
            #expect(date.year == year && date.month == month && date.day == day)
        }
    }

    @Test func addingDaysMovesTheDayNumberAndTheWeekday() async {
        await propertyCheck(count: 2000, input: Gen.int(in: -300_000...2_500_000), Gen.int(in: -100_000...100_000)) { start, days in
            let date = CivilDate(dayNumber: Int32(start))
            let moved = date.adding(days: days)
            #expect(Int(moved.dayNumber) == start + days)
            #expect(moved.adding(days: -days) == date)
            #expect(moved.weekday == ((date.weekday + days) % 7 + 7) % 7)
            #expect((moved > date) == (days > 0))
        }
    }

    @Test func nextDayIsTheFollowingCalendarDay() async {
        await propertyCheck(count: 2000, input: Self.dayNumbers) { dayNumber in
            let date = CivilDate(dayNumber: Int32(dayNumber))
            guard date < .max else { return }
            let (year, month, day) = date.components
            let next = date.adding(days: 1).components
            if day < CivilDate.daysInMonth(year: year, month: month) {
                #expect(next == (year, month, day + 1))
            } else if month < 12 {
                #expect(next == (year, month + 1, 1))
            } else {
                #expect(next == (year + 1, 1, 1))
            }
        }
    }

    @Test func addingMonthsKeepsTheDayOrClampsIt() async {
        await propertyCheck(count: 2000, input: Gen.int(in: 0...2_000_000), Gen.int(in: -240...240)) { dayNumber, months in
            let date = CivilDate(dayNumber: Int32(dayNumber))
            let (year, month, day) = date.components
            let moved = date.adding(months: months).components
            #expect((moved.year * 12 + moved.month - 1) - (year * 12 + month - 1) == months)
            #expect(moved.day == min(day, CivilDate.daysInMonth(year: moved.year, month: moved.month)))
        }
    }
}
