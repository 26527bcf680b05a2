import Foundation
import Scheduler
import Testing
import Vault

/// Every plan type steps by its own cadence: a week, one, three or twelve months, once, or its list.
/// The expected dates come from an exhaustive switch, as the stride in `PlanDates` does: a new plan
/// type has to state its dates here and its stride there, never inheriting twelve months by default.
@Suite struct PlanCadenceTests {
    @Test(arguments: PlanType.allCases)
    func eachPlanTypeStepsByItsOwnCadence(_ type: PlanType) throws {
        let start = planDay("2027-01-15")
        let time = try #require(LocalTime(hour: 9, minute: 0))
        let utc = try #require(TimeZone(identifier: "UTC"))
        let plan: Plan
        let expected: [String]
        switch type {
        case .delayedOnce:
            plan = try Plan(type: type, startDate: start, end: nil, time: time, timeZone: utc)
            expected = ["2027-01-15"]
        case .weekly:
            plan = try Plan(type: type, startDate: start, end: .count(3), day: 5, time: time, timeZone: utc)
            expected = ["2027-01-15", "2027-01-22", "2027-01-29"]
        case .monthly:
            plan = try Plan(type: type, startDate: start, end: .count(3), day: 15, time: time, timeZone: utc)
            expected = ["2027-01-15", "2027-02-15", "2027-03-15"]
        case .quarterly:
            plan = try Plan(type: type, startDate: start, end: .count(3), month: 1, day: 15, time: time, timeZone: utc)
            expected = ["2027-01-15", "2027-04-15", "2027-07-15"]
        case .annual:
            plan = try Plan(type: type, startDate: start, end: .count(3), month: 1, day: 15, time: time, timeZone: utc)
            expected = ["2027-01-15", "2028-01-15", "2029-01-15"]
        case .arbitraryDates:
            plan = try Plan(
                type: type, startDate: nil, end: nil, dates: [planDay("2027-01-15"), planDay("2027-02-01"), planDay("2027-06-30")], time: time,
                timeZone: utc)
            expected = ["2027-01-15", "2027-02-01", "2027-06-30"]
        }
        #expect(plan.stepDates.map(\.iso) == expected)
    }
}
