import Metrics
import Scheduler

/// The `/metrics` counters of the charge runs `vault serve` runs: steps by outcome, why steps were
/// not approved, and how often a run stopped charging a merchant whose gateway was unreachable.
enum ChargeRunMetrics {
    /// Adds a finished run's counts.
    static func record(_ summary: ChargeRunSummary) {
        for (outcome, totals) in summary.outcomes where totals.count > 0 {
            Counter(label: VaultMetricNames.chargeRunSteps, dimensions: [("outcome", outcome)]).increment(by: totals.count)
        }
        for (code, count) in summary.failuresByCode {
            Counter(label: "vault_charge_run_failures_total", dimensions: [("code", code)]).increment(by: count)
        }
        if !summary.unreachableMerchants.isEmpty {
            Counter(label: "vault_charge_run_unreachable_stops_total").increment(by: summary.unreachableMerchants.count)
        }
    }
}
