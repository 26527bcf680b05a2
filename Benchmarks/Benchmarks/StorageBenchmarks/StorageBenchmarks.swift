import BenchmarkScenarios
import Benchmark

/// Group commit: 64 concurrent tasks each commit a one-row write transaction through the writer
/// with `synchronous=FULL`, batched (the default) against one fsync'd commit per write
/// (`maxBatchSize = 1`). One scaled iteration is 64 writes; compare the throughputs. The workload
/// is the vault's `BenchmarkScenarios.GroupCommitFixture` (built and checked by its tests).
///
/// The charge runner's store loop on SQLite, one runner (`BenchmarkScenarios.ChargeLoopFixture`):
/// claim due steps, write their attempts, write their approved outcomes, no gateway. One scaled
/// iteration charges 1,000 due steps (added before the measurement starts); ×1,000 the throughput
/// is steps per second, beside the same loop on PostgreSQL in `PostgresBenchmarks`.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .cpuTotal],
        warmupIterations: 2,
        scalingFactor: .one,
        maxDuration: .seconds(5),
        maxIterations: 2_000
    )

    Benchmark("64 concurrent one-row write transactions, group commit (maxBatchSize 256)") { benchmark in
        for round in benchmark.scaledIterations {
            blackHole(await batched.writeRound(round))
        }
    } teardown: {
        batched.remove()
    }

    Benchmark("64 concurrent one-row write transactions, one commit each (maxBatchSize 1)") { benchmark in
        for round in benchmark.scaledIterations {
            blackHole(await unbatched.writeRound(round))
        }
    } teardown: {
        unbatched.remove()
    }

    Benchmark("charge loop: 1000 due steps, 1 runner, SQLite", configuration: .init(maxDuration: .seconds(30), maxIterations: 20)) { benchmark in
        let fixture = try await ChargeLoopFixture.shared(.sqlite)
        try await fixture.addDueSteps(1_000 * benchmark.scaledIterations.count)
        benchmark.startMeasurement()
        blackHole(try await fixture.chargeDueSteps())
        benchmark.stopMeasurement()
    } teardown: {
        try await ChargeLoopFixture.shared(.sqlite).remove()
    }
}

let batched = fixture(maxBatchSize: 256)
let unbatched = fixture(maxBatchSize: 1)

func fixture(maxBatchSize: Int) -> GroupCommitFixture {
    do {
        return try GroupCommitFixture(maxBatchSize: maxBatchSize)
    } catch {
        fatalError("cannot open the benchmark database: \(error)")
    }
}
