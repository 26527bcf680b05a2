import Foundation
import PropertyBased
import Scheduler
import Testing
import Vault

@Suite struct PlanPropertyTests {
    /// One repeating rule in three endings: by count, by date, and open-ended.
    struct Example: Sendable, CustomStringConvertible {
        let byCount: Plan
        let byDate: Plan?
        let open: Plan
        let endDate: CivilDate
        let count: Int
        var description: String {
            "\(byCount.type.rawValue) month \(byCount.month.map(String.init) ?? "-") day \(byCount.day ?? 0) from \(byCount.startDate), count \(count), until \(endDate)"
        }
    }

    static let examples = zip(
        Gen.element(of: [PlanType.weekly, .monthly, .quarterly, .annual]),
        Gen.int(in: 18_000...40_000),
        Gen.int(in: 0...32),
        Gen.int(in: 1...12),
        Gen.int(in: 1...40),
        Gen.int(in: 0...2_000)
    ).map { values in
        let (someType, startDay, daySeed, month, count, endOffset) = values
        let type = someType ?? .monthly
        let start = CivilDate(dayNumber: Int32(startDay))
        let day = type == .weekly ? daySeed % 8 : max(1, daySeed)
        let planMonth = type == .weekly || type == .monthly ? nil : month
        let zone = TimeZone(identifier: "UTC")!
        func plan(_ end: PlanEnd) throws -> Plan {
            try Plan(type: type, startDate: start, end: end, month: planMonth, day: day, timeZone: zone)
        }
        let endDate = start.adding(days: endOffset)
        return Example(
            byCount: try! plan(.count(count)), byDate: try? plan(.date(endDate)), open: try! plan(.never),
            endDate: endDate, count: count)
    }

    /// Whether `date` is a step date of the rule: the weekday, or the plan's day clamped to the month
    /// (and the month, for quarterly and annual plans).
    static func matches(_ date: CivilDate, _ plan: Plan) -> Bool {
        let (year, month, dayOfMonth) = date.components
        let clampedDay = min(plan.day ?? 1, CivilDate.daysInMonth(year: year, month: month))
        switch plan.type {
        case .weekly: return date.weekday == (plan.day ?? 0) % 7
        case .monthly: return dayOfMonth == clampedDay
        case .quarterly: return (month - 1) % 3 == ((plan.month ?? 1) - 1) % 3 && dayOfMonth == clampedDay
        case .annual: return month == plan.month && dayOfMonth == clampedDay
        case .delayedOnce, .arbitraryDates: return false
        }
    }

    @Test func countPlansGiveExactlyTheFirstMatchingDaysFromStart() async {
        await propertyCheck(count: 300, input: Self.examples) { example in
            let plan = example.byCount
            let steps = Array(plan.stepDates)
            #expect(steps.count == example.count)
            #expect(plan.stepCount == example.count)
            #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 < $1 })
            #expect(steps.allSatisfy { $0 >= plan.startDate })
            #expect(steps.allSatisfy { Self.matches($0, plan) })
            // Brute force: walk the calendar day by day from the start date.
            var expected: [CivilDate] = []
            var candidate = plan.startDate
            while expected.count < example.count {
                if Self.matches(candidate, plan) { expected.append(candidate) }
                candidate = candidate.adding(days: 1)
            }
            #expect(steps == expected)
        }
    }

    @Test func dateEndedPlansAreTheOpenPlanUpToEndDate() async {
        await propertyCheck(count: 300, input: Self.examples) { example in
            let expected = Array(example.open.stepDates.prefix { $0 <= example.endDate })
            guard let plan = example.byDate else {
                #expect(expected.isEmpty)
                return
            }
            let steps = Array(plan.stepDates)
            #expect(!steps.isEmpty)
            #expect(steps == expected)
            #expect(steps.allSatisfy { $0 >= plan.startDate && $0 <= example.endDate })
            #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 < $1 })
        }
    }

    @Test func expandingTwiceGivesTheSameSteps() async {
        await propertyCheck(count: 200, input: Self.examples) { example in
            #expect(Array(example.byCount.stepDates) == Array(example.byCount.stepDates))
            #expect(example.byCount.steps(horizon: nil, limit: 100) == example.byCount.steps(horizon: nil, limit: 100))
            let open = example.open.steps(horizon: example.endDate, limit: 1000)
            #expect(open.map(\.date) == Array(example.open.stepDates.prefix { $0 <= example.endDate }))
            #expect(open.map(\.sequence) == Array(1..<(open.count + 1)))
        }
    }

    @Test func arbitraryDatesAreSortedUniqueAndComplete() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...3_000).set(ofAtMost: 1...30)) { offsets in
            let dates = offsets.map { planTestToday.adding(days: $0) }
            let plan = try Plan(type: .arbitraryDates, startDate: nil, end: nil, dates: dates, timeZone: planTestRules.defaultTimeZone)
            #expect(Array(plan.stepDates) == dates.sorted())
            #expect(plan.stepCount == dates.count)
        }
    }
}
