public import Foundation
public import Vault

/// A validated recurring plan.
///
/// A plan is only the rule: which dates, at which local time, in which zone. Its steps
/// come from `stepDates`, a lazy sequence, so a fifty-year weekly plan costs nothing until read.
/// `month` and `day` keep the values the client sent (weekly `7`, quarterly `4`); expansion
/// treats equivalent values alike.
public struct Plan: Sendable, Hashable {
    /// How the plan repeats.
    public let type: PlanType
    /// No step falls before this date; for `arbitraryDates` without one, the first date.
    public let startDate: CivilDate
    /// When the steps stop; `delayedOnce` is `.count(1)` and `arbitraryDates` `.count(dates.count)`.
    public let end: PlanEnd
    /// The month, 1-12 (quarterly: the month within each quarter is `(month - 1) % 3 + 1`; annual).
    public let month: Int?
    /// Weekly 0-7 (0 and 7 Sunday, 1 Monday ... 6 Saturday); monthly, quarterly, annual 1-32 (32 the last day).
    public let day: Int?
    /// The step dates of an `arbitraryDates` plan, sorted; empty for other types.
    public let dates: [CivilDate]
    /// The local time each step falls due.
    public let time: LocalTime
    /// The zone `time` is read in.
    public let timeZone: TimeZone

    /// A plan from typed values, checked against every rule that does not depend on the day
    /// it is made (required and forbidden fields, ranges, end after start, steps that fit by 9999-12-31,
    /// a date-ended plan with at least one step). `Plan(validating:rules:)` adds the rules about today
    /// and the step cap.
    ///
    /// - Parameters:
    ///   - startDate: required except for `arbitraryDates`, where it defaults to the first date and,
    ///     when given, no date may precede it.
    ///   - end: required for repeating types; for `delayedOnce` and `arbitraryDates` it must be `nil`
    ///     or the count their steps already have.
    ///   - dates: `arbitraryDates` only, any order, no duplicates.
    /// - Throws: `PlanValidationError` naming the field and the rule.
    public init(
        type: PlanType, startDate: CivilDate?, end: PlanEnd?, month: Int? = nil, day: Int? = nil,
        dates: [CivilDate] = [], time: LocalTime = .midnight, timeZone: TimeZone
    ) throws(PlanValidationError) {
        try Self.checkFields(type: type, month: month, day: day, dates: dates)
        let sortedDates = try Self.checkedDates(dates, startDate: startDate)
        guard let start = startDate ?? sortedDates.first else {
            throw .required("startDate", "startDate is required for a \(type.rawValue) plan")
        }
        guard Self.representable.contains(start) else {
            throw .outOfRange("startDate", "startDate must be within \(CivilDate.min)...\(CivilDate.max)")
        }
        self.type = type
        self.startDate = start
        self.month = month
        self.day = day
        self.dates = sortedDates
        self.time = time
        self.timeZone = timeZone
        self.end = try Self.checkedEnd(end, type: type, startDate: start, stepCount: sortedDates.count)
        try checkSteps()
    }

    /// The lazy sequence of step dates, in order (infinite in practice for `.never`: it stops at 9999-12-31).
    public var stepDates: PlanDates { PlanDates(plan: self) }

    /// The number of steps of a finite plan (`nil` for `.never`); counts a date-ended plan's steps.
    public var stepCount: Int? {
        switch end {
        case .count(let count): count
        case .date: stepDates.reduce(0) { count, _ in count + 1 }
        case .never: nil
        }
    }
}

extension Plan {
    private static let representable = CivilDate.min...CivilDate.max

    private static func checkFields(type: PlanType, month: Int?, day: Int?, dates: [CivilDate]) throws(PlanValidationError) {
        let name = type.rawValue
        switch type {
        case .delayedOnce, .arbitraryDates:
            if month != nil { throw .notAllowed("month", "month does not apply to a \(name) plan") }
            if day != nil { throw .notAllowed("day", "day does not apply to a \(name) plan") }
        case .weekly:
            if month != nil { throw .notAllowed("month", "month does not apply to a weekly plan") }
            guard let day else { throw .required("day", "day (0-7, 0 and 7 Sunday) is required for a weekly plan") }
            guard (0...7).contains(day) else {
                throw .outOfRange("day", "day must be 0-7 for a weekly plan (0 and 7 Sunday, 1 Monday ... 6 Saturday)")
            }
        case .monthly, .quarterly, .annual:
            if type == .monthly, month != nil { throw .notAllowed("month", "month does not apply to a monthly plan") }
            if type != .monthly {
                guard let month else { throw .required("month", "month (1-12) is required for a \(name) plan") }
                guard (1...12).contains(month) else { throw .outOfRange("month", "month must be 1-12") }
            }
            guard let day else { throw .required("day", "day (1-32, 32 the last day) is required for a \(name) plan") }
            guard (1...32).contains(day) else {
                throw .outOfRange("day", "day must be 1-32 for a \(name) plan (32 is the last day of the month)")
            }
        }
        if type == .arbitraryDates {
            if dates.isEmpty { throw .init(field: "dates", rule: "empty", message: "dates must list at least one date") }
        } else if !dates.isEmpty {
            throw .notAllowed("dates", "dates apply only to an arbitraryDates plan")
        }
    }

    private static func checkedDates(_ dates: [CivilDate], startDate: CivilDate?) throws(PlanValidationError) -> [CivilDate] {
        var seen = Set<CivilDate>(minimumCapacity: dates.count)
        for (index, date) in dates.enumerated() {
            guard representable.contains(date) else {
                throw .outOfRange("dates[\(index)]", "dates must be within \(CivilDate.min)...\(CivilDate.max)")
            }
            guard seen.insert(date).inserted else {
                throw .init(field: "dates[\(index)]", rule: "duplicate", message: "\(date) is listed more than once")
            }
            if let startDate, date < startDate {
                throw .init(
                    field: "dates[\(index)]", rule: "before_start_date",
                    message: "\(date) is before startDate \(startDate)")
            }
        }
        return dates.sorted()
    }

    private static func checkedEnd(_ end: PlanEnd?, type: PlanType, startDate: CivilDate, stepCount: Int) throws(PlanValidationError) -> PlanEnd {
        guard type.repeats else {
            let steps = type == .delayedOnce ? 1 : stepCount
            guard end == nil || end == .count(steps) else {
                throw .notAllowed("endType", "a \(type.rawValue) plan ends with its dates; give no endType, endDate or endCount")
            }
            return .count(steps)
        }
        guard let end else {
            throw .required("endType", "endType (date, count or never) is required for a \(type.rawValue) plan")
        }
        switch end {
        case .date(let endDate) where endDate < startDate:
            throw .init(field: "endDate", rule: "before_start_date", message: "endDate \(endDate) is before startDate \(startDate)")
        case .count(let count) where count < 1:
            throw .outOfRange("endCount", "endCount must be at least 1")
        default:
            return end
        }
    }

    private func checkSteps() throws(PlanValidationError) {
        switch end {
        case .date(let endDate):
            var steps = stepDates.makeIterator()
            guard steps.next() != nil else {
                throw .init(field: "endDate", rule: "no_steps", message: "no step falls between startDate \(startDate) and endDate \(endDate)")
            }
        case .count(let count):
            guard stepDates.makeIterator().canYield(count) else {
                throw .outOfRange("endCount", "\(count) steps would run past \(CivilDate.max)")
            }
        case .never:
            break
        }
    }
}
