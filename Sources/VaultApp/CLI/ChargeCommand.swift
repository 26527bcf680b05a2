import ArgumentParser
import Foundation
import Logging
import Payments
import Scheduler
import Synchronization
import Vault
import VaultAPI

/// `vault charge run`: charges every due step, then exits with a summary.
struct ChargeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "charge", abstract: "Charge runs.", subcommands: [Run.self])

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Charge every due step (active schedules, live cards, due by --as-of), exactly once.",
            discussion: """
                Safe to re-run at any time, also after a crash: one-off transactions whose gateway answer was lost are \
                looked up first (the reconciler), attempts left in doubt are settled with the same idempotency key before \
                anything else, and no step is charged twice. Exit 0 when every due step was \
                settled (approved or declined), 1 when some could not be (gateway unreachable; re-run later), 2 on usage errors.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: "Charge steps due at or before this RFC 3339 instant (default: now).")
        var asOf: String?

        @Flag(help: "Report what is due and change nothing.")
        var dryRun = false

        @Option(help: "Gateway calls in flight at once (default from config).")
        var concurrency: Int?

        @Option(help: "Only this merchant (name or mer_ id).")
        var merchant: String?

        @Flag(help: "Print one JSON summary object on stdout.")
        var json = false

        func validate() throws {
            if let asOf, Timestamp.parse(asOf) == nil {
                throw ValidationError("--as-of must be an RFC 3339 instant such as 2027-01-31T09:00:00Z")
            }
            if let concurrency, !(1...1024).contains(concurrency) {
                throw ValidationError("--concurrency must be between 1 and 1024")
            }
        }

        func run() async throws {
            let configuration = try global.loadConfiguration()
            VaultLogging.bootstrap(configuration.logging)
            let logger = Logger(label: "vault.runner")
            if !ProcessHardening.disableCoreDumps() { logger.warning("could not turn core dumps off") }
            let runtime = try await VaultRuntime.open(configuration: configuration, logger: logger)
            defer { runtime.close() }
            var options = runtime.chargeRunOptions(asOf: asOf.flatMap(Timestamp.parse) ?? Date())
            options.dryRun = dryRun
            if let concurrency { options.concurrency = concurrency }
            if let merchant {
                let found: Merchant? = if merchant.hasPrefix("mer_") { try await runtime.store.merchant(id: merchant) } else { try await runtime.store.merchant(named: merchant) }
                guard let found else { throw MerchantError.notFound(merchant) }
                options.merchantID = found.id
            }
            let runID = OpaqueToken.make(prefix: "run_", randomBits: 80)
            let record = ChargeRunRecord(
                id: runID, merchantID: options.merchantID, status: "running", asOf: options.asOf, dryRun: dryRun, startedBy: "cli", startedAt: Date(), owner: RunnerIdentity.process)
            if !dryRun {
                try await runtime.store.insertChargeRun(
                    record, audit: AuditEntry(merchantID: options.merchantID, actor: "cli", action: "charge_run.started", objectType: "charge_run", objectID: runID))
            }
            if !dryRun {
                // One-off transactions whose answers were lost are settled first, from the gateways' records.
                let reconcilerLogger = Logger(label: "vault.reconciler")
                let reconciled = try await runtime.reconciler(logger: reconcilerLogger).reconcile(
                    now: Date(), interval: TimeInterval(configuration.reconcile.intervalSeconds))
                reconciled.log(to: reconcilerLogger)
            }
            let reporter = ProgressReporter(enabled: !json)
            let summary = try await runtime.chargeRunner(logger: logger).run(options, runID: runID, actor: "cli") { progress in
                reporter.report(progress)
            }
            reporter.finish()
            if !dryRun {
                var finished = record
                finished.status = summary.settled ? "completed" : "failed"
                finished.finishedAt = Date()
                finished.summary = String(decoding: try JSONCoding.encoder.encode(summary), as: UTF8.self)
                try await runtime.store.updateChargeRun(finished)
            }
            if json {
                print(String(decoding: try JSONCoding.encoder.encode(summary), as: UTF8.self))
            } else {
                print(summary.table)
            }
            if !summary.settled { throw ExitCode.failure }
        }
    }
}

/// A progress bar on a terminal (standard error), a plain line every few seconds otherwise.
final class ProgressReporter: Sendable {
    private let enabled: Bool
    private let terminal: Bool
    private let state = Mutex<(lastPrint: ContinuousClock.Instant, printed: Bool)>((ContinuousClock.now, false))

    init(enabled: Bool) {
        self.enabled = enabled
        self.terminal = isatty(STDERR_FILENO) == 1
    }

    func report(_ summary: ChargeRunSummary) {
        guard enabled else { return }
        let interval: Duration = terminal ? .milliseconds(100) : .seconds(5)
        let shouldPrint = state.withLock { state in
            let now = ContinuousClock.now
            guard now - state.lastPrint >= interval else { return false }
            state.lastPrint = now
            state.printed = true
            return true
        }
        guard shouldPrint else { return }
        let done = summary.processed
        let total = max(summary.due.count, done)
        let approved = summary.outcomes[ChargeOutcome.approved.rawValue]?.count ?? 0
        if terminal {
            let width = 30
            let filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total) charged, \(approved) approved".utf8))
        } else {
            FileHandle.standardError.write(Data("progress: \(done)/\(total) steps, \(approved) approved\n".utf8))
        }
    }

    func finish() {
        guard enabled, terminal, state.withLock({ $0.printed }) else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}

