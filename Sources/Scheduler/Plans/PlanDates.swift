public import Vault

/// The step dates of a plan, in order, computed one at a time as they are read.
///
/// Weekly plans step by seven days; monthly, quarterly and annual plans step by one, three
/// or twelve months and clamp the plan's own day to each month (so Jan 31 comes back to Mar 31
/// after Feb 28); `arbitraryDates` walk their sorted list. Nothing is allocated per step.
/// An open-ended plan stops only at 9999-12-31, the last date the vault represents.
public struct PlanDates: Sequence, Sendable {
    private let start: Iterator

    init(plan: Plan) {
        start = Iterator(plan: plan)
    }

    /// An iterator from the plan's first step.
    public func makeIterator() -> Iterator { start }

    /// The iterator state: the next candidate date and how many steps may still come.
    public struct Iterator: IteratorProtocol, Sendable {
        private enum Cadence: Sendable {
            case days(Int32)
            case months(Int)
            case list
        }

        private static let lastMonthIndex = 9999 * 12 + 11

        private let cadence: Cadence
        private let dayOfMonth: Int
        private let list: [CivilDate]
        private let lastDay: Int32
        private var nextDay: Int32 = 0
        private var monthIndex = 0
        private var listIndex = 0
        private var remaining: Int

        init(plan: Plan) {
            let start = plan.startDate
            lastDay =
                switch plan.end {
                case .date(let endDate): Swift.min(endDate.dayNumber, CivilDate.max.dayNumber)
                case .count, .never: CivilDate.max.dayNumber
                }
            remaining =
                switch plan.end {
                case .count(let count): count
                case .date, .never: Int.max
                }
            list = plan.dates
            dayOfMonth = plan.day ?? 1
            switch plan.type {
            case .delayedOnce:
                cadence = .days(1)
                nextDay = start.dayNumber
                remaining = 1
            case .arbitraryDates:
                cadence = .list
            case .weekly:
                cadence = .days(7)
                let weekday = (plan.day ?? 0) % 7
                nextDay = start.dayNumber + Int32((weekday - start.weekday + 7) % 7)
            // One case per month-based type, no `default`: a new plan type must state its stride here.
            case .monthly:
                cadence = .months(1)
            case .quarterly:
                cadence = .months(3)
            case .annual:
                cadence = .months(12)
            }
            if case .months(let stride) = cadence {
                monthIndex = Self.firstMonthIndex(start: start, stride: stride, month: plan.month, day: dayOfMonth)
            }
        }

        /// The month index (year * 12 + month - 1) of the first step of a plan stepping by `stride`
        /// months in phase with `month` (1-12, default January), on `day` clamped to each month, on
        /// or after `start`.
        private static func firstMonthIndex(start: CivilDate, stride: Int, month: Int?, day: Int) -> Int {
            let phase = ((month ?? 1) - 1) % stride
            let (year, startMonth, _) = start.components
            let startIndex = year * 12 + startMonth - 1
            var index = startIndex + ((phase - startIndex % stride) % stride + stride) % stride
            if date(monthIndex: index, day: day) < start { index += stride }
            return index
        }

        /// The next step date, or `nil` after the last one.
        public mutating func next() -> CivilDate? {
            guard remaining > 0 else { return nil }
            let date: CivilDate
            switch cadence {
            case .days(let stride):
                guard nextDay <= lastDay else { return finish() }
                date = CivilDate(dayNumber: nextDay)
                nextDay += stride
            case .months(let stride):
                guard monthIndex <= Self.lastMonthIndex else { return finish() }
                date = Self.date(monthIndex: monthIndex, day: dayOfMonth)
                guard date.dayNumber <= lastDay else { return finish() }
                monthIndex += stride
            case .list:
                guard listIndex < list.count, list[listIndex].dayNumber <= lastDay else { return finish() }
                date = list[listIndex]
                listIndex += 1
            }
            remaining -= 1
            return date
        }

        /// Whether `count` more steps fit before 9999-12-31 (ignoring `remaining`), computed without iterating.
        func canYield(_ count: Int) -> Bool {
            guard count > 0 else { return true }
            switch cadence {
            case .days(let stride):
                return nextDay <= lastDay && (count - 1) <= Int(lastDay - nextDay) / Int(stride)
            case .months(let stride):
                return monthIndex <= Self.lastMonthIndex && (count - 1) <= (Self.lastMonthIndex - monthIndex) / stride
            case .list:
                return count <= list.count - listIndex
            }
        }

        private mutating func finish() -> CivilDate? {
            remaining = 0
            return nil
        }

        private static func date(monthIndex: Int, day: Int) -> CivilDate {
            let year = monthIndex / 12
            return CivilDate.clamped(year: year, month: monthIndex - year * 12 + 1, day: day)
        }
    }
}
