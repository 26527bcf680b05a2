import Foundation
import Scheduler
import Testing
import Vault

@Suite struct PlanValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let request: PlanTerms
        let field: String
        let rule: String
        var rules = planTestRules
        var testDescription: String { "\(field) \(rule)" }
    }

    static let weekly = PlanTerms(type: "weekly", startDate: "2027-01-04", endType: "count", endCount: 4, day: 1)
    static let monthly = PlanTerms(type: "monthly", startDate: "2027-01-04", endType: "count", endCount: 4, day: 31)
    static let quarterly = PlanTerms(type: "quarterly", startDate: "2027-01-04", endType: "count", endCount: 4, month: 2, day: 15)
    static let annual = PlanTerms(type: "annual", startDate: "2027-01-04", endType: "count", endCount: 4, month: 2, day: 29)
    static let once = PlanTerms(type: "delayedOnce", startDate: "2027-01-04")
    static let arbitrary = PlanTerms(type: "arbitraryDates", dates: ["2027-02-01", "2027-01-05"])

    static func with(_ request: PlanTerms, _ change: (inout PlanTerms) -> Void) -> PlanTerms {
        var request = request
        change(&request)
        return request
    }

    static let cases: [Case] = [
        Case(request: with(weekly) { $0.type = nil }, field: "type", rule: "required"),
        Case(request: with(weekly) { $0.type = "daily" }, field: "type", rule: "unknown_value"),
        Case(request: with(weekly) { $0.startDate = nil }, field: "startDate", rule: "required"),
        Case(request: with(once) { $0.startDate = nil }, field: "startDate", rule: "required"),
        Case(request: with(weekly) { $0.startDate = "2027-02-30" }, field: "startDate", rule: "invalid_format"),
        Case(request: with(weekly) { $0.startDate = "04.01.2027" }, field: "startDate", rule: "invalid_format"),
        Case(request: with(weekly) { $0.startDate = "2026-12-31" }, field: "startDate", rule: "in_past"),
        Case(request: with(weekly) { $0.day = nil }, field: "day", rule: "required"),
        Case(request: with(weekly) { $0.day = 8 }, field: "day", rule: "out_of_range"),
        Case(request: with(weekly) { $0.day = -1 }, field: "day", rule: "out_of_range"),
        Case(request: with(weekly) { $0.month = 1 }, field: "month", rule: "not_allowed"),
        Case(request: with(monthly) { $0.day = 0 }, field: "day", rule: "out_of_range"),
        Case(request: with(monthly) { $0.day = 33 }, field: "day", rule: "out_of_range"),
        Case(request: with(monthly) { $0.month = 3 }, field: "month", rule: "not_allowed"),
        Case(request: with(quarterly) { $0.month = nil }, field: "month", rule: "required"),
        Case(request: with(quarterly) { $0.month = 13 }, field: "month", rule: "out_of_range"),
        Case(request: with(quarterly) { $0.month = 0 }, field: "month", rule: "out_of_range"),
        Case(request: with(quarterly) { $0.day = nil }, field: "day", rule: "required"),
        Case(request: with(annual) { $0.day = nil }, field: "day", rule: "required"),
        Case(request: with(annual) { $0.month = nil }, field: "month", rule: "required"),
        Case(request: with(annual) { $0.day = 40 }, field: "day", rule: "out_of_range"),
        Case(request: with(weekly) { $0.hour = 24 }, field: "hour", rule: "out_of_range"),
        Case(request: with(weekly) { $0.hour = -1 }, field: "hour", rule: "out_of_range"),
        Case(request: with(weekly) { $0.hour = 9; $0.minute = 60 }, field: "minute", rule: "out_of_range"),
        Case(request: with(weekly) { $0.minute = 30 }, field: "hour", rule: "required"),
        Case(request: with(weekly) { $0.endType = nil }, field: "endType", rule: "required"),
        Case(request: with(weekly) { $0.endType = "forever" }, field: "endType", rule: "unknown_value"),
        Case(request: with(weekly) { $0.endType = "date" }, field: "endCount", rule: "not_allowed"),
        Case(request: with(weekly) { $0.endType = "date"; $0.endCount = nil }, field: "endDate", rule: "required"),
        Case(request: with(weekly) { $0.endCount = nil }, field: "endCount", rule: "required"),
        Case(request: with(weekly) { $0.endDate = "2027-03-01" }, field: "endDate", rule: "not_allowed"),
        Case(request: with(weekly) { $0.endType = "never" }, field: "endCount", rule: "not_allowed"),
        Case(request: with(weekly) { $0.endType = "never"; $0.endCount = nil; $0.endDate = "2027-03-01" }, field: "endDate", rule: "not_allowed"),
        Case(request: with(weekly) { $0.endCount = 0 }, field: "endCount", rule: "out_of_range"),
        Case(request: with(weekly) { $0.endCount = 1001 }, field: "endCount", rule: "out_of_range"),
        Case(request: with(weekly) { $0.endType = "date"; $0.endCount = nil; $0.endDate = "2027-01-03" }, field: "endDate", rule: "before_start_date"),
        Case(request: with(weekly) { $0.endType = "date"; $0.endCount = nil; $0.endDate = "2027-13-01" }, field: "endDate", rule: "invalid_format"),
        Case(request: with(weekly) { $0.endType = "date"; $0.endCount = nil; $0.endDate = "2027-01-06"; $0.day = 5 }, field: "endDate", rule: "no_steps"),
        Case(request: with(weekly) { $0.endType = "date"; $0.endCount = nil; $0.endDate = "2050-01-01" }, field: "endDate", rule: "out_of_range"),
        Case(request: with(weekly) { $0.dates = ["2027-01-05"] }, field: "dates", rule: "not_allowed"),
        Case(request: with(weekly) { $0.timeZone = "Mars/Olympus_Mons" }, field: "timeZone", rule: "unknown_time_zone"),
        Case(request: with(weekly) { $0.timeZone = "" }, field: "timeZone", rule: "unknown_time_zone"),
        Case(request: with(once) { $0.endType = "count"; $0.endCount = 1 }, field: "endType", rule: "not_allowed"),
        Case(request: with(once) { $0.endCount = 1 }, field: "endCount", rule: "not_allowed"),
        Case(request: with(once) { $0.endDate = "2027-01-04" }, field: "endDate", rule: "not_allowed"),
        Case(request: with(once) { $0.month = 1 }, field: "month", rule: "not_allowed"),
        Case(request: with(once) { $0.day = 1 }, field: "day", rule: "not_allowed"),
        Case(request: with(arbitrary) { $0.dates = nil }, field: "dates", rule: "required"),
        Case(request: with(arbitrary) { $0.dates = [] }, field: "dates", rule: "empty"),
        Case(request: with(arbitrary) { $0.dates = ["2027-02-01", "2027-02-01"] }, field: "dates[1]", rule: "duplicate"),
        Case(request: with(arbitrary) { $0.dates = ["2026-12-31", "2027-02-01"] }, field: "dates[0]", rule: "in_past"),
        Case(request: with(arbitrary) { $0.dates = ["2027-02-01", "2027-2-1"] }, field: "dates[1]", rule: "invalid_format"),
        Case(request: with(arbitrary) { $0.startDate = "2027-01-10" }, field: "dates[1]", rule: "before_start_date"),
        Case(request: with(arbitrary) { $0.endType = "date"; $0.endDate = "2027-03-01" }, field: "endType", rule: "not_allowed"),
        Case(request: with(arbitrary) { $0.day = 3 }, field: "day", rule: "not_allowed"),
        Case(
            request: with(arbitrary) { $0.dates = ["2027-02-01", "2027-02-02", "2027-02-03"] }, field: "dates", rule: "out_of_range",
            rules: PlanRules(defaultTimeZone: planTestRules.defaultTimeZone, maxCount: 2, today: planTestToday)),
    ]

    @Test(arguments: cases)
    func invalidRequestsNameTheFieldAndTheRule(_ example: Case) throws {
        let error = #expect(throws: PlanValidationError.self) {
            try Plan(validating: example.request, rules: example.rules)
        }
        #expect(error?.field == example.field)
        #expect(error?.rule == example.rule)
        #expect(error?.message.isEmpty == false)
        #expect(error.map { "\($0)".hasPrefix("\(example.field): ") } == true)
    }

    @Test func aValidRequestGetsDefaultsFromTheRules() throws {
        let plan = try validatedPlan(Self.weekly)
        #expect(plan.type == .weekly)
        #expect(plan.startDate == planDay("2027-01-04"))
        #expect(plan.end == .count(4))
        #expect(plan.day == 1)
        #expect(plan.time == LocalTime(hour: 9, minute: 0))
        #expect(plan.timeZone == planTestRules.defaultTimeZone)
    }

    @Test func hourAloneMeansMinuteZeroAndTheZoneIsThePlans() throws {
        let plan = try validatedPlan(Self.with(Self.quarterly) { $0.hour = 14; $0.timeZone = "Asia/Kathmandu" })
        #expect(plan.time == LocalTime(hour: 14, minute: 0))
        #expect(plan.timeZone.identifier == "Asia/Kathmandu")
        #expect(plan.steps(horizon: nil, limit: 1).first?.dueAt == planInstant("2027-02-15T08:15:00Z"))
    }

    @Test func todayIsAllowedAndArbitraryDatesAreSorted() throws {
        #expect(try validatedPlan(Self.with(Self.once) { $0.startDate = "2027-01-01" }).startDate == planTestToday)
        let plan = try validatedPlan(Self.arbitrary)
        #expect(plan.dates.map(\.iso) == ["2027-01-05", "2027-02-01"])
        #expect(plan.end == .count(2))
        #expect(try validatedPlan(Self.with(Self.weekly) { $0.dates = [] }).dates.isEmpty)
    }

    @Test func todayComesFromTheClockInThePlansZoneWhenNotGiven() {
        let rules = PlanRules(defaultTimeZone: TimeZone(identifier: "Pacific/Kiritimati")!)
        let past = Self.with(Self.weekly) { $0.startDate = "2001-01-01" }
        #expect(throws: PlanValidationError.self) { try Plan(validating: past, rules: rules) }
        #expect(throws: Never.self) { try Plan(validating: Self.with(Self.weekly) { $0.startDate = "9000-01-01" }, rules: rules) }
    }

    @Test func countPlansMustFitBeforeTheLastRepresentableDate() {
        let error = #expect(throws: PlanValidationError.self) {
            try Plan(type: .annual, startDate: planDay("9990-01-01"), end: .count(20), month: 1, day: 1, timeZone: planTestRules.defaultTimeZone)
        }
        #expect(error?.field == "endCount")
        #expect(error?.rule == "out_of_range")
    }

    @Test func typedPlansRejectDatesOutsideYears1To9999() {
        let error = #expect(throws: PlanValidationError.self) {
            try Plan(type: .weekly, startDate: CivilDate(dayNumber: -800_000), end: .never, day: 1, timeZone: planTestRules.defaultTimeZone)
        }
        #expect(error?.field == "startDate")
        #expect(error?.rule == "out_of_range")
    }
}
