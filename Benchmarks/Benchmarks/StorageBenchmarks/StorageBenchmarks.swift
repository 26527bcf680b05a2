import BenchmarkScenarios
import Benchmark

/// Group commit: 64 concurrent tasks each commit a one-row write transaction through the writer
/// with `synchronous=FULL`, batched (the default) against one fsync'd commit per write
/// (`maxBatchSize = 1`). One scaled iteration is 64 writes; compare the throughputs. The workload
/// is the vault's `BenchmarkScenarios.GroupCommitFixture` (built and checked by its tests).
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
