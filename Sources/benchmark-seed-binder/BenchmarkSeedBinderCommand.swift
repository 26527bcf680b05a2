import ArgumentParser
import Foundation
import Logging
import VaultApp

/// `benchmark-seed-binder --merchant ID`: binds the schedule and step rows a benchmark seeder
/// copied in SQL (`scripts/seed_due_steps.py`), with the vault's own keys, so the charge runner
/// charges them instead of sending them to review (``BenchmarkSeedBinder``).
///
/// A benchmark tool for the runner benchmarks and the crash test, not part of the `vault` product:
/// it needs the master key, so it gives nobody a power they do not already have. It opens the
/// vault as `vault` does (`--config`, `VAULT_DATABASE`, `VAULT_DATABASE_URL`, `VAULT_KEYS_DIR`, the
/// master key source) and prints one JSON line: `{"schedules": n, "steps": n, "seconds": s}`.
@main
struct BenchmarkSeedBinderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "benchmark-seed-binder",
        abstract: "Bind the schedule and step rows of one merchant copied in SQL by a benchmark seeder (benchmarks only).")

    @Option(name: .long, help: "Configuration file (default: $VAULT_CONFIG, else config/vault.yaml if it exists, else built-in defaults).")
    var config: String?

    @Option(help: "The merchant whose unbound rows are bound (mer_ id or name).")
    var merchant: String

    @Option(help: "Schedules (with their steps) bound per write.")
    var batchSize = BenchmarkSeedBinder.defaultBatchSize

    func validate() throws {
        guard (1...100_000).contains(batchSize) else { throw ValidationError("--batch-size must be between 1 and 100000") }
    }

    func run() async throws {
        let configuration = try VaultConfiguration.load(path: config)
        VaultLogging.bootstrap(configuration.logging)
        let logger = Logger(label: "vault.benchmark-seed-binder")
        let started = ContinuousClock.now
        let report = try await BenchmarkSeedBinder.run(configuration: configuration, merchant: merchant, logger: logger, batchSize: batchSize)
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(#"{"schedules": \#(report.schedules), "steps": \#(report.steps), "seconds": \#(String(format: "%.2f", seconds))}"#)
    }
}
