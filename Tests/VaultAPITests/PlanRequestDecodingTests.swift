import Foundation
import Scheduler
import Testing
import Vault
import VaultAPI

/// A schedule body's plan fields decode under the API's field names into the terms the domain
/// validates.
@Suite struct PlanRequestDecodingTests {
    @Test func requestsDecodeFromTheSpecsFieldNames() throws {
        let json = #"""
            {"type":"annual","startDate":"2027-01-04","endType":"count","endCount":3,"month":2,"day":29,
             "hour":8,"minute":15,"timeZone":"Europe/London"}
            """#
        let request = try JSONDecoder().decode(PlanRequest.self, from: Data(json.utf8))
        let rules = PlanRules(
            defaultTimeZone: TimeZone(identifier: "UTC")!, defaultTime: LocalTime(hour: 9, minute: 0)!, maxCount: 1000,
            today: CivilDate(year: 2027, month: 1, day: 1)!)
        let plan = try Plan(validating: request.terms, rules: rules)
        #expect(plan.stepDates.map(\.iso) == ["2027-02-28", "2028-02-29", "2029-02-28"])
        #expect(plan.time == LocalTime(hour: 8, minute: 15))
    }
}
