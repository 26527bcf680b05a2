public import Foundation
public import Scheduler
public import Vault

/// The same step dates as `Plan.stepDates`, computed the usual Foundation way with
/// `Calendar.date(byAdding:)` in UTC: the baseline the plan-expansion benchmark compares against.
///
/// Weekly steps add 7·k days to the first step; month-based steps add stride·k months to the
/// first of the first step's month, then clamp the plan's day with `range(of:in:for:)`.
/// The first step is taken from `Plan.stepDates` (set-up, not measured per step).
public struct FoundationPlanDates: IteratorProtocol {
    private enum Cadence {
        case days(Int)
        case months(stride: Int, day: Int)
        case list([Date])
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private let calendar = FoundationPlanDates.calendar
    private let cadence: Cadence
    private let anchor: Date
    private let last: Date
    private var remaining: Int
    private var step = 0

    /// The dates of `plan`, from its first step.
    public init(plan: Plan) {
        var planDates = plan.stepDates.makeIterator()
        let first = planDates.next() ?? plan.startDate
        let (year, month, _) = first.components
        switch plan.end {
        case .count(let count): remaining = count
        case .date, .never: remaining = .max
        }
        if case .date(let endDate) = plan.end {
            last = Self.date(endDate)
        } else {
            last = .distantFuture
        }
        switch plan.type {
        case .delayedOnce, .weekly:
            cadence = .days(7)
            anchor = Self.date(first)
        case .monthly:
            cadence = .months(stride: 1, day: plan.day ?? 1)
            anchor = Self.date(CivilDate(year: year, month: month, day: 1)!)
        case .quarterly:
            cadence = .months(stride: 3, day: plan.day ?? 1)
            anchor = Self.date(CivilDate(year: year, month: month, day: 1)!)
        case .annual:
            cadence = .months(stride: 12, day: plan.day ?? 1)
            anchor = Self.date(CivilDate(year: year, month: month, day: 1)!)
        case .arbitraryDates:
            cadence = .list(plan.dates.map(Self.date))
            anchor = Self.date(first)
        }
    }

    /// The next step date (midnight UTC of the step's day), or `nil` after the last one.
    public mutating func next() -> Date? {
        guard remaining > 0 else { return nil }
        let date: Date
        switch cadence {
        case .days(let days):
            date = calendar.date(byAdding: .day, value: days * step, to: anchor)!
        case .months(let stride, let day):
            let monthStart = calendar.date(byAdding: .month, value: stride * step, to: anchor)!
            let length = calendar.range(of: .day, in: .month, for: monthStart)!.count
            date = calendar.date(byAdding: .day, value: min(day, length) - 1, to: monthStart)!
        case .list(let dates):
            guard step < dates.count else { return nil }
            date = dates[step]
        }
        guard date <= last else {
            remaining = 0
            return nil
        }
        step += 1
        remaining -= 1
        return date
    }

    /// Midnight UTC of `civil`.
    public static func date(_ civil: CivilDate) -> Date {
        Date(timeIntervalSince1970: Double(civil.dayNumber) * 86_400)
    }
}
