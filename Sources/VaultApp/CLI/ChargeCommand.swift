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
                anything else, and no step is charged twice. SIGTERM or SIGINT (or --max-duration passing) stops it cleanly: \
                it claims nothing more, finishes the gateway calls in flight, writes their outcomes, prints its summary \
                and exits with its code; the steps it did not begin stay due. \(ChargeRunExitCode.help)
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

        @Flag(help: "Print one JSON summary object on stdout (progress lines still go to standard error).")
        var json = false

        @Option(help: "Stop claiming after this long (e.g. 90s, 45m, 2h; plain seconds), finish the calls in flight and print the summary.")
        var maxDuration: String?

        func validate() throws {
            if let maxDuration, Self.duration(maxDuration) == nil {
                throw ValidationError("--max-duration must be a positive duration such as 90s, 45m or 2h")
            }
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
            // Before anything is opened: a stop asked at any time from here ends the run cleanly.
            let stop = ChargeRunStop(deadline: maxDuration.flatMap(Self.duration).map { ContinuousClock.now + $0 })
            let signals = Self.stopOnSignals(stop, logger: logger)
            defer { signals.forEach { $0.cancel() } }
            if !ProcessHardening.disableCoreDumps() { logger.warning("could not turn core dumps off") }
            let runtime = try await VaultRuntime.open(configuration: configuration, logger: logger)
            defer { runtime.close() }
            var options = runtime.chargeRunOptions(asOf: asOf.flatMap(Timestamp.parse) ?? Date())
            options.dryRun = dryRun
            options.stop = stop
            if let concurrency { options.concurrency = concurrency }
            if let merchant {
                let found: Merchant? = if merchant.hasPrefix("mer_") { try await runtime.store.merchant(id: merchant) } else { try await runtime.store.merchant(named: merchant) }
                guard let found else { throw MerchantError.notFound(merchant) }
                options.merchantID = found.id
            }
            let runID = OpaqueToken.make(prefix: "run_", randomBits: 80)
            let record = ChargeRunRecord(
                id: runID, merchantID: options.merchantID, status: .running, asOf: options.asOf, dryRun: dryRun, startedBy: "cli", startedAt: Date(), owner: RunnerIdentity.process)
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
            let reporter = ProgressReporter(enabled: true, bar: !json)
            let summary = try await runtime.chargeRunner(logger: logger).run(options, runID: runID, actor: "cli") { progress in
                reporter.report(progress)
            }
            reporter.finish()
            if !dryRun {
                var finished = record
                finished.status = summary.settled ? .completed : .failed
                finished.finishedAt = Date()
                finished.summary = String(decoding: try JSONCoding.encoder.encode(summary), as: UTF8.self)
                try await runtime.store.updateChargeRun(finished)
                await Self.sendReceipts(runtime, logger: logger)
            }
            if json {
                print(String(decoding: try JSONCoding.encoder.encode(summary), as: UTF8.self))
            } else {
                print(summary.table)
            }
            let code = ChargeRunExitCode.code(for: summary)
            if code != ChargeRunExitCode.settled { throw ExitCode(code) }
        }

        /// Sends the e-mail receipts due now (those of the run's approved charges among them), once:
        /// what the mail program refuses waits for its retry in `vault serve` or the next run. Without
        /// a usable mail program the receipts stay queued and a warning says so when any waits; a failure here
        /// never changes the run's exit code.
        static func sendReceipts(_ runtime: VaultRuntime, logger: Logger) async {
            do {
                _ = try await runtime.receiptDeliverer(logger: Logger(label: "vault.receipts")).deliverDue(now: Date())
            } catch let error as ReceiptsNotConfigured {
                let waiting = (try? await runtime.store.receipts(merchantID: nil, status: .pending, beforeSequence: nil, limit: 1)) ?? []
                if !waiting.isEmpty { logger.warning("e-mail receipts are queued but not sent", metadata: ["reason": "\(error.reason)"]) }
            } catch {
                logger.warning("receipt delivery failed", metadata: ["error": "\(error)"])
            }
        }

        /// `90s`, `45m`, `2h`, or plain seconds; nil unless positive.
        static func duration(_ text: String) -> Duration? {
            let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600]
            var digits = Substring(text)
            var scale = 1
            if let last = text.last, let unit = units[last] {
                digits = text.dropLast()
                scale = unit
            }
            guard let value = Int(digits), value > 0, value <= 7 * 86_400 / scale else { return nil }
            return .seconds(value * scale)
        }

        /// SIGTERM (systemd stop, `timeout`) and SIGINT ask the run to stop instead of ending the
        /// process: the run finishes its calls in flight and writes their outcomes, and its summary
        /// is printed. A second signal changes nothing; SIGKILL still ends the process at once.
        static func stopOnSignals(_ stop: ChargeRunStop, logger: Logger) -> [any DispatchSourceSignal] {
            [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { number, name in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    logger.warning("\(name): stopping the charge run; no more steps are claimed, the gateway calls in flight finish")
                    stop.request("signal")
                }
                source.resume()
                return source
            }
        }
    }
}

/// A progress bar on a terminal (standard error), a plain line every few seconds otherwise (also
/// with `--json`, whose summary alone goes to standard output).
final class ProgressReporter: Sendable {
    private let enabled: Bool
    private let terminal: Bool
    private let state = Mutex<(lastPrint: ContinuousClock.Instant, printed: Bool)>((ContinuousClock.now, false))

    init(enabled: Bool, bar: Bool = true) {
        self.enabled = enabled
        self.terminal = bar && isatty(STDERR_FILENO) == 1
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

