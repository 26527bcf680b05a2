import Foundation
import Scheduler
import Vault

/// The fixed "today" of plan tests: 2027-01-01, a Friday.
let planTestToday = CivilDate(year: 2027, month: 1, day: 1)!

/// Rules for tests: UTC, 09:00, at most 1000 steps, today 2027-01-01.
let planTestRules = PlanRules(defaultTimeZone: TimeZone(identifier: "UTC")!, defaultTime: LocalTime(hour: 9, minute: 0)!, maxCount: 1000, today: planTestToday)

/// A date from `yyyy-MM-dd`, trapping on a typo in the test itself.
func planDay(_ iso: String) -> CivilDate {
    guard let date = CivilDate(iso: iso) else { fatalError("bad test date \(iso)") }
    return date
}

/// The ISO strings of the first `count` step dates (all of them when `nil`).
func planStepISO(_ plan: Plan, first count: Int? = nil) -> [String] {
    if let count { return plan.stepDates.prefix(count).map(\.iso) }
    return plan.stepDates.map(\.iso)
}

/// A plan validated from a request against `planTestRules`.
func validatedPlan(_ request: PlanTerms) throws(PlanValidationError) -> Plan {
    try Plan(validating: request, rules: planTestRules)
}

/// An instant from an ISO 8601 UTC string.
func planInstant(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("bad test instant \(text)") }
    return date
}
