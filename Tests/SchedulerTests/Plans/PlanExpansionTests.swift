import Foundation
import Scheduler
import Testing
import Vault

@Suite struct PlanExpansionTests {
    let utcZone = TimeZone(identifier: "UTC")!

    func plan(_ type: PlanType, start: String, end: PlanEnd?, month: Int? = nil, day: Int? = nil) throws -> Plan {
        try Plan(type: type, startDate: planDay(start), end: end, month: month, day: day, timeZone: utcZone)
    }

    @Test func monthlyOn31ClampsPerMonthFromThePlansDay() throws {
        #expect(try planStepISO(plan(.monthly, start: "2027-01-31", end: .count(5), day: 31)) == [
            "2027-01-31", "2027-02-28", "2027-03-31", "2027-04-30", "2027-05-31",
        ])
        #expect(try planStepISO(plan(.monthly, start: "2028-01-01", end: .count(3), day: 31)) == [
            "2028-01-31", "2028-02-29", "2028-03-31",
        ])
    }

    @Test(arguments: [2027, 2028])
    func monthlyDay32IsTheLastDayOfEveryMonth(year: Int) throws {
        let steps = try plan(.monthly, start: "\(year)-01-01", end: .count(12), day: 32).stepDates.map(\.components)
        #expect(steps.count == 12)
        for (index, step) in steps.enumerated() {
            #expect(step.year == year && step.month == index + 1)
            #expect(step.day == CivilDate.daysInMonth(year: year, month: index + 1))
        }
        #expect(steps[1].day == (year == 2028 ? 29 : 28))
    }

    @Test func monthlyFirstStepIsTheFirstMatchOnOrAfterStart() throws {
        #expect(try planStepISO(plan(.monthly, start: "2027-01-10", end: .count(2), day: 15)) == ["2027-01-15", "2027-02-15"])
        #expect(try planStepISO(plan(.monthly, start: "2027-01-15", end: .count(1), day: 15)) == ["2027-01-15"])
        #expect(try planStepISO(plan(.monthly, start: "2027-01-16", end: .count(1), day: 15)) == ["2027-02-15"])
        #expect(try planStepISO(plan(.monthly, start: "2027-02-28", end: .count(2), day: 30)) == ["2027-02-28", "2027-03-30"])
    }

    @Test func weeklyDay0And7AreBothSunday() throws {
        let zero = try plan(.weekly, start: "2027-01-01", end: .count(10), day: 0)
        let seven = try plan(.weekly, start: "2027-01-01", end: .count(10), day: 7)
        #expect(Array(zero.stepDates) == Array(seven.stepDates))
        #expect(planStepISO(zero, first: 2) == ["2027-01-03", "2027-01-10"])
        #expect(zero.stepDates.allSatisfy { $0.weekday == 0 })
    }

    @Test func weeklyStartsOnTheFirstSuchWeekdayOnOrAfterStart() throws {
        // 2027-01-01 is a Friday (5).
        #expect(try planStepISO(plan(.weekly, start: "2027-01-01", end: .count(2), day: 5)) == ["2027-01-01", "2027-01-08"])
        #expect(try planStepISO(plan(.weekly, start: "2027-01-01", end: .count(2), day: 1)) == ["2027-01-04", "2027-01-11"])
        #expect(try planStepISO(plan(.weekly, start: "2027-01-01", end: .count(1), day: 4)) == ["2027-01-07"])
    }

    @Test func quarterlyMonthsNameTheSameQuarterPhase() throws {
        for (a, b) in [(1, 4), (2, 5), (3, 12), (1, 10)] {
            let first = try plan(.quarterly, start: "2027-01-01", end: .count(8), month: a, day: 15)
            let second = try plan(.quarterly, start: "2027-01-01", end: .count(8), month: b, day: 15)
            #expect(Array(first.stepDates) == Array(second.stepDates), "months \(a) and \(b)")
        }
        #expect(try planStepISO(plan(.quarterly, start: "2027-01-01", end: .count(5), month: 2, day: 15)) == [
            "2027-02-15", "2027-05-15", "2027-08-15", "2027-11-15", "2028-02-15",
        ])
        #expect(try planStepISO(plan(.quarterly, start: "2027-02-20", end: .count(2), month: 5, day: 15)) == ["2027-05-15", "2027-08-15"])
        #expect(try planStepISO(plan(.quarterly, start: "2027-01-01", end: .count(4), month: 3, day: 31)) == [
            "2027-03-31", "2027-06-30", "2027-09-30", "2027-12-31",
        ])
    }

    @Test func annualFeb29FallsOnFeb28InCommonYears() throws {
        #expect(try planStepISO(plan(.annual, start: "2027-01-01", end: .count(6), month: 2, day: 29)) == [
            "2027-02-28", "2028-02-29", "2029-02-28", "2030-02-28", "2031-02-28", "2032-02-29",
        ])
        #expect(try planStepISO(plan(.annual, start: "2027-03-01", end: .count(2), month: 2, day: 29)) == ["2028-02-29", "2029-02-28"])
        #expect(try planStepISO(plan(.annual, start: "2027-01-01", end: .count(2), month: 4, day: 32)) == ["2027-04-30", "2028-04-30"])
    }

    @Test func endDateLandingOnAStepIncludesIt() throws {
        #expect(try planStepISO(plan(.weekly, start: "2027-01-01", end: .date(planDay("2027-01-29")), day: 5)) == [
            "2027-01-01", "2027-01-08", "2027-01-15", "2027-01-22", "2027-01-29",
        ])
        #expect(try planStepISO(plan(.weekly, start: "2027-01-01", end: .date(planDay("2027-01-28")), day: 5)).count == 4)
        #expect(try planStepISO(plan(.monthly, start: "2027-01-01", end: .date(planDay("2027-02-28")), day: 32)) == ["2027-01-31", "2027-02-28"])
    }

    @Test func countOneGivesOneStep() throws {
        #expect(try planStepISO(plan(.monthly, start: "2027-01-01", end: .count(1), day: 32)) == ["2027-01-31"])
        #expect(try planStepISO(plan(.weekly, start: "2027-01-01", end: .count(1), day: 3)) == ["2027-01-06"])
    }

    @Test func delayedOnceIsOneStepOnTheStartDate() throws {
        let once = try plan(.delayedOnce, start: "2027-03-14", end: nil)
        #expect(planStepISO(once) == ["2027-03-14"])
        #expect(once.end == .count(1))
        #expect(once.stepCount == 1)
    }

    @Test func arbitraryDatesAreSortedAndStartAtTheFirst() throws {
        let dates = ["2027-05-01", "2027-01-02", "2027-03-14"].map(planDay)
        let plan = try Plan(type: .arbitraryDates, startDate: nil, end: nil, dates: dates, timeZone: utcZone)
        #expect(planStepISO(plan) == ["2027-01-02", "2027-03-14", "2027-05-01"])
        #expect(plan.startDate == planDay("2027-01-02"))
        #expect(plan.end == .count(3))
    }

    @Test func neverIsLazyAndOpenEndedUntilTheLastRepresentableDate() throws {
        let weekly = try plan(.weekly, start: "2027-01-01", end: .never, day: 1)
        #expect(weekly.stepCount == nil)
        let first10000 = Array(weekly.stepDates.prefix(10_000))
        #expect(first10000.count == 10_000)
        #expect(first10000.last == planDay("2027-01-04").adding(days: 7 * 9_999))
        #expect(try planStepISO(plan(.monthly, start: "9999-01-01", end: .never, day: 32)).count == 12)
    }

    @Test func expandingTwiceGivesTheSameDates() throws {
        let monthly = try plan(.monthly, start: "2027-01-31", end: .date(planDay("2030-01-01")), day: 31)
        #expect(Array(monthly.stepDates) == Array(monthly.stepDates))
        #expect(monthly.stepCount == 36)
    }
}
