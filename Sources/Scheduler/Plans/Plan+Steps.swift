public import Vault

extension Plan {
    /// Step dates and instants up to `limit` steps and (for .never) up to `horizon` inclusive.
    ///
    /// Finite plans (`date`, `count`) ignore `horizon`: all their steps are materialized at creation,
    /// up to `limit`. An open-ended plan with a `nil` horizon is bounded by `limit` alone.
    public func steps(horizon: CivilDate?, limit: Int) -> [PlannedStep] {
        steps(after: 0, horizon: horizon, limit: limit)
    }

    /// The steps after the first `sequence` ones, up to `limit` steps and (for .never) up to `horizon`
    /// inclusive: how a rolling horizon is extended past the steps already stored.
    public func steps(after sequence: Int, horizon: CivilDate?, limit: Int) -> [PlannedStep] {
        guard limit > 0 else { return [] }
        let through = end == .never ? horizon : nil
        var resolver = DueInstantResolver(zone: timeZone)
        var steps: [PlannedStep] = []
        if case .count(let count) = end {
            steps.reserveCapacity(Swift.max(0, Swift.min(limit, count - sequence)))
        }
        var number = 0
        for date in stepDates {
            number += 1
            if number <= sequence { continue }
            if let through, date > through { break }
            steps.append(PlannedStep(sequence: number, date: date, dueAt: resolver.instant(of: date, at: time)))
            if steps.count == limit { break }
        }
        return steps
    }
}
