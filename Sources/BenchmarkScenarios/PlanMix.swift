import Foundation
public import Scheduler
import Vault

/// The plans the expansion benchmarks read: every plan type, the clamping days (29-32), a Feb 29
/// annual plan, in the zones that matter. 1,000 steps in all; readers cycle through them.
public enum PlanMix {
    public static let plans: [Plan] = {
        let start = CivilDate(year: 2027, month: 1, day: 15)!
        let newYork = TimeZone(identifier: "America/New_York")!
        let london = TimeZone(identifier: "Europe/London")!
        let nineThirty = LocalTime(hour: 9, minute: 30)!
        func plan(_ type: PlanType, count: Int, month: Int? = nil, day: Int? = nil, zone: TimeZone = newYork) -> Plan {
            try! Plan(type: type, startDate: start, end: .count(count), month: month, day: day, time: nineThirty, timeZone: zone)
        }
        let dates = (0..<50).map { start.adding(days: $0 * 11 + $0 % 3) }
        return [
            plan(.weekly, count: 260, day: 1),
            plan(.weekly, count: 100, day: 7, zone: london),
            plan(.monthly, count: 120, day: 31),
            plan(.monthly, count: 120, day: 32, zone: london),
            plan(.monthly, count: 120, day: 15),
            plan(.quarterly, count: 80, month: 2, day: 30),
            plan(.quarterly, count: 60, month: 12, day: 1),
            plan(.annual, count: 40, month: 2, day: 29),
            plan(.annual, count: 49, month: 10, day: 32),
            try! Plan(type: .delayedOnce, startDate: start, end: nil, time: nineThirty, timeZone: newYork),
            try! Plan(type: .arbitraryDates, startDate: nil, end: nil, dates: dates, time: nineThirty, timeZone: newYork),
        ]
    }()

    /// The total number of steps in `plans`.
    public static let stepCount = plans.reduce(0) { $0 + ($1.stepCount ?? 0) }
}

/// Reads steps from a list of plans without end: each plan's iterator to its end, then the next plan.
public struct CyclingSteps<Steps: IteratorProtocol>: IteratorProtocol {
    private let plans: [Plan]
    private let makeSteps: (Plan) -> Steps
    private var index = 0
    private var current: Steps

    /// Steps of `plans`, each plan's read through `makeSteps`.
    public init(plans: [Plan], makeSteps: @escaping (Plan) -> Steps) {
        self.plans = plans
        self.makeSteps = makeSteps
        current = makeSteps(plans[0])
    }

    /// The next step; never `nil` (after the last plan comes the first again).
    public mutating func next() -> Steps.Element? {
        while true {
            if let step = current.next() { return step }
            index = index + 1 == plans.count ? 0 : index + 1
            current = makeSteps(plans[index])
        }
    }
}
