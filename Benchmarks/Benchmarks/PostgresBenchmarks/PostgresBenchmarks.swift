import BenchmarkScenarios
import Benchmark
import Foundation

/// The shared request limits on PostgreSQL: what one `take` (one token-bucket statement, every API
/// request of a server on PostgreSQL pays it) costs, serially and with 16 concurrent takers. One
/// scaled iteration is 1,000 takes over 64 subjects; ×1,000 the throughput is takes per second.
/// The workload is the vault's `BenchmarkScenarios.PostgresRequestLimitFixture`, in a database of
/// its own on the server `VAULT_BENCHMARK_DATABASE_URL` names (its role must be allowed to
/// CREATE DATABASE); without it the benchmarks are skipped, saying so.
///
/// The charge runner's store loop on PostgreSQL (`BenchmarkScenarios.ChargeLoopFixture`): claim
/// due steps, write their attempts, write their approved outcomes, no gateway. One scaled
/// iteration charges 1,000 due steps (added before the measurement starts); ×1,000 the throughput
/// is steps per second. One runner and two (two stores, as two processes), writing a group of
/// steps per statement (what the runner does) against one step at a time; the same loop on SQLite
/// is in `StorageBenchmarks`, for comparison.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(10),
        maxIterations: 100
    )

    guard let url = ProcessInfo.processInfo.environment[PostgresRequestLimitFixture.serverVariable], !url.isEmpty else {
        print("PostgresBenchmarks skipped: \(PostgresRequestLimitFixture.serverVariable) is not set (a PostgreSQL server whose role may CREATE DATABASE)")
        return
    }

    Benchmark("request limit: 1000 takes, one after another") { benchmark in
        let fixture = try await PostgresRequestLimitFixture.shared(serverURL: url)
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.takeSerially(1_000))
        }
    }

    Benchmark("request limit: 1000 takes from 16 concurrent takers") { benchmark in
        let fixture = try await PostgresRequestLimitFixture.shared(serverURL: url)
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.takeConcurrently(1_000, workers: 16))
        }
    } teardown: {
        try await PostgresRequestLimitFixture.shared(serverURL: url).remove()
    }

    for (writes, label) in [(ChargeLoopFixture.Writes.inGroups, "in groups"), (.oneStepAtATime, "one step at a time")] {
        for runners in [1, 2] {
            let engine = ChargeLoopFixture.Engine.postgres(serverURL: url, runners: runners, writes: writes)
            Benchmark(
                "charge loop: 1000 due steps, \(runners) runner\(runners == 1 ? "" : "s"), writes \(label)",
                configuration: .init(maxDuration: .seconds(30), maxIterations: 20)
            ) { benchmark in
                let fixture = try await ChargeLoopFixture.shared(engine)
                try await fixture.addDueSteps(1_000 * benchmark.scaledIterations.count)
                benchmark.startMeasurement()
                blackHole(try await fixture.chargeDueSteps())
                benchmark.stopMeasurement()
            } teardown: {
                try await ChargeLoopFixture.shared(engine).remove()
            }
        }
    }
}
