import BenchmarkScenarios
import Benchmark
import Foundation
import Scheduler
import Vault

/// Plan expansion at 5 million steps/s or more, with calendar arithmetic rather than Foundation
/// `Calendar` in the hot loop. Each scaled iteration reads one step from a cycle of
/// `PlanMix.plans` (every type, clamping days, Feb 29), so throughput is steps per second; the
/// Foundation benchmark reads the same dates the `Calendar.date(byAdding:)` way, for the ratio.
/// The workloads are the vault's `BenchmarkScenarios` module (built and checked by its tests).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        warmupIterations: 3,
        scalingFactor: .mega,
        maxDuration: .seconds(3),
        maxIterations: 100
    )

    Benchmark("Plan expansion, step dates (mixed types)") { benchmark in
        var steps = CyclingSteps(plans: PlanMix.plans) { $0.stepDates.makeIterator() }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(steps.next())
        }
    }

    Benchmark(
        "Foundation Calendar.date(byAdding:), same step dates",
        configuration: .init(scalingFactor: .kilo)
    ) { benchmark in
        var steps = CyclingSteps(plans: PlanMix.plans) { FoundationPlanDates(plan: $0) }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(steps.next())
        }
    }

    Benchmark(
        "Plan steps with dueAt (mixed types, New York and London)",
        configuration: .init(scalingFactor: .kilo)
    ) { benchmark in
        var produced = 0
        var index = 0
        while produced < benchmark.scaledIterations.count {
            let steps = PlanMix.plans[index].steps(horizon: nil, limit: benchmark.scaledIterations.count - produced)
            produced += steps.count
            blackHole(steps)
            index = (index + 1) % PlanMix.plans.count
        }
    }
}
