import BenchmarkScenarios
import Benchmark

/// Registering cards in the library (validate, encrypt, fingerprint, insert) against inserting the
/// same rows into SQLite unencrypted, in the same run. One scaled iteration is 1,000 cards written
/// by 64 concurrent tasks through the group-commit writer; compare the throughputs (×1,000 for
/// cards per second). The workload is the vault's `BenchmarkScenarios.RegistrationFixture`.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(10),
        maxIterations: 200
    )

    Benchmark("register 1000 cards: validate, seal, fingerprint, insert (64 tasks)") { benchmark in
        let fixture = try await RegistrationFixture.shared()
        for round in benchmark.scaledIterations {
            blackHole(await fixture.register(round: round))
        }
    }

    Benchmark("insert 1000 card rows unencrypted into SQLite (64 tasks, baseline)") { benchmark in
        let fixture = try await RegistrationFixture.shared()
        for round in benchmark.scaledIterations {
            blackHole(await fixture.insertPlain(round: round))
        }
    } teardown: {
        try await RegistrationFixture.shared().remove()
    }
}
