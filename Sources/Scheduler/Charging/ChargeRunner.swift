public import Foundation
public import Logging
public import Payments
public import Vault

/// Charges every due step, exactly once.
///
/// For each claimed step: an attempt found open (recorded before a gateway call whose outcome was
/// never recorded) is settled first with the same idempotency key — looked up at the gateway,
/// re-sent only when the gateway has no record of it. Otherwise a new attempt is written (with the
/// idempotency key `<step id>-a<attempt>`) *before* the gateway call, and its outcome after. Steps
/// are streamed in leased batches, charged with bounded concurrency, so memory stays flat however
/// many are due, and several runners share the work without overlap. A batch's attempts are
/// written in one write, and outcomes in groups (see `chargeDueSteps`): the single SQLite writer
/// is what bounds a run's throughput (docs/decisions/performance.md).
public struct ChargeRunner: Sendable {
    /// How a run behaves.
    public struct Options: Sendable {
        /// Steps due at or before this instant are charged.
        public var asOf: Date
        /// Report only; change nothing.
        public var dryRun = false
        /// Gateway calls in flight at once.
        public var concurrency = 16
        /// Only this merchant.
        public var merchantID: String?
        /// Steps leased per claim.
        public var batchSize = 256
        /// How long a claim holds a step.
        public var lease: TimeInterval = 300
        /// In-run retries of retryable gateway errors (unreachable gateway, rate limits), with
        /// backoff from `retryBackoff`; then the step is left for the next run.
        public var gatewayRetries = 2
        /// First backoff between in-run retries; doubles.
        public var retryBackoff: Duration = .milliseconds(200)
        /// The longest `Retry-After` a run waits for; a rate limit asking for longer leaves the
        /// step for the next run at once.
        public var maximumRetryAfter: Duration = .seconds(30)
        /// How the runner waits between retries (tests inject one that returns at once).
        public var sleep: @Sendable (Duration) async -> Void = { duration in try? await Task.sleep(for: duration) }
        /// Days ahead open-ended schedules are kept materialized.
        public var horizonDays = 400
        /// An attempt whose outcome is unknown is re-sent (same key) only when the gateway has no
        /// record of it *and* it is older than this: a sale still being processed must not be sent twice.
        public var inDoubtGrace: TimeInterval = 120
        /// After this long, an attempt the gateway still holds for review goes to operator review.
        public var heldForReviewLimit: TimeInterval = 3 * 86_400
        /// After this many consecutive sales of one merchant that reached no gateway
        /// (`gateway_unreachable`: the connection was refused or never made, nothing was sent), the
        /// run stops charging that merchant: its other steps stay due, untouched, for the next run.
        public var unreachableLimit = 10
        /// Ends the run early and cleanly (a signal, a deadline); nil: it runs until nothing is due.
        public var stop: ChargeRunStop?
        /// The rule for attempts whose answer was lost (the same for every transaction in doubt).
        public var inDoubtPolicy: InDoubtPolicy { InDoubtPolicy(grace: inDoubtGrace, heldForReviewLimit: heldForReviewLimit) }

        /// Options for a run as of `asOf`.
        public init(asOf: Date) {
            self.asOf = asOf
        }
    }

    let store: any ChargeRunStore & ScheduleStore & ScheduleBindingStore
    let cards: SecureCardService
    let gateways: MerchantGateways
    let merchants: any MerchantStore
    let policy: RetryPolicy
    let logger: Logger
    /// The cards' stored credentials: the original network transaction id sent with each
    /// scheduled charge (`nil`: charges go out as first payments of their series, none is kept).
    let storedCredentials: StoredCredentials?
    /// Checks every claimed step and its schedule before anything is sent (``ScheduleBinding``).
    let binding: ScheduleBinding
    /// Binds every attempt's transaction row as it is written (``TransactionBinding``).
    let transactionBinding: TransactionBinding
    /// Opens the schedules' receipt contacts for text receipts (`nil`: no receipt is requested).
    let contacts: ScheduleContactOpener?

    /// Creates a runner.
    public init(
        store: any ChargeRunStore & ScheduleStore & ScheduleBindingStore, cards: SecureCardService, gateways: MerchantGateways, merchants: any MerchantStore,
        policy: RetryPolicy, logger: Logger, storedCredentials: StoredCredentials? = nil, contacts: ScheduleContactOpener? = nil
    ) {
        self.storedCredentials = storedCredentials
        self.contacts = contacts
        self.store = store
        self.cards = cards
        self.gateways = gateways
        self.merchants = merchants
        self.policy = policy
        self.logger = logger
        self.binding = ScheduleBinding(keyring: cards.keyring)
        self.transactionBinding = TransactionBinding(keyring: cards.keyring)
    }

    /// Runs once and returns the summary; `progress` is called after every settled step.
    public func run(
        _ options: Options, runID: String = OpaqueToken.make(prefix: "run_", randomBits: 80), actor: String = "runner",
        progress: @escaping @Sendable (ChargeRunSummary) -> Void = { _ in }
    ) async throws -> ChargeRunSummary {
        let started = ContinuousClock.now
        var summary = ChargeRunSummary(runId: runID, asOf: options.asOf, dryRun: options.dryRun)
        if !options.dryRun {
            summary.schedulesExtended = try await extendHorizons(options)
        }
        let due = try await store.dueStepTotals(asOf: options.asOf, merchantID: options.merchantID)
        summary.due = OutcomeTotals(count: due.count, totals: due.totals)
        if options.dryRun {
            summary.durationSeconds = Self.seconds(since: started)
            return summary
        }
        let owner = RunnerIdentity.make()
        let run = RunState(options: options, owner: owner, actor: actor, context: RunContext())
        var held: [String] = []
        var failures = ChargeFailureTally()
        do {
            try await chargeDueSteps(run, summary: &summary, failures: &failures, started: started, held: &held, progress: progress)
        } catch {
            try? await store.releaseLeases(stepIDs: held, owner: owner)
            failures.log(to: logger, runID: runID, problems: await run.context.configurationProblems)
            throw error
        }
        failures.log(to: logger, runID: runID, problems: await run.context.configurationProblems)
        summary.unreachableMerchants = await run.context.stopped
        if let reason = summary.stoppedBy {
            logger.warning(
                "charge run stopped before charging every due step; the rest stay due for the next run",
                metadata: ["run": "\(runID)", "reason": "\(reason)", "processed": "\(summary.processed)", "due": "\(summary.due.count)"])
        }
        // Steps whose attempt or outcome could not be written stay leased until the run ends, so
        // this run does not claim them again; then they are free for the next run.
        try? await store.releaseLeases(stepIDs: held, owner: owner)
        // Steps in doubt from this or an earlier run (crashed, or whose gateway did not answer) are
        // held back until their grace period ends: the night is not settled until a run after it.
        let heldBack = try await store.heldBackSteps(merchantID: options.merchantID, now: Date())
        if heldBack > 0 {
            summary.settled = false
            logger.info(
                "steps in doubt, held back until their grace period has passed; re-run after it",
                metadata: ["run": "\(runID)", "steps": "\(heldBack)"])
        }
        if let reviews = store as? any StepReviewStore {
            summary.stepsInReview = try await reviews.stepsInReview(merchantID: options.merchantID)
        }
        summary.durationSeconds = Self.seconds(since: started)
        summary.chargesPerSecond = summary.durationSeconds > 0 ? Double(summary.processed) / summary.durationSeconds : 0
        logger.info(
            "charge run finished",
            metadata: ["run": "\(runID)", "processed": "\(summary.processed)", "settled": "\(summary.settled)",
                       "approved": "\(ChargeRunSummary.money(summary.outcomes[ChargeOutcome.approved.rawValue]?.totals ?? [:]))",
                       "seconds": "\(String(format: "%.2f", summary.durationSeconds))"])
        return summary
    }

    /// An order reference of at most 20 characters, unique per step and attempt.
    static func orderReference(stepID: String, attempt: Int) -> String {
        let suffix = "a\(attempt)"
        let body = stepID.split(separator: "_").last.map(String.init) ?? stepID
        return "s" + String(body.suffix(19 - suffix.count)) + suffix
    }
}

/// Per-run caches: merchants and their adapters (credentials are opened once per run), and why a
/// merchant's adapter could not be built.
actor RunContext {
    private var merchants: [String: Merchant] = [:]
    private var adapters: [String: any GatewayAdapter] = [:]
    private var unusable: [String: String] = [:]
    private var unreachableInARow: [String: Int] = [:]
    private var stoppedMerchants: Set<String> = []

    func merchant(_ id: String, store: any MerchantStore) async throws -> Merchant? {
        if let known = merchants[id] { return known }
        let merchant = try await store.merchant(id: id)
        merchants[id] = merchant
        return merchant
    }

    func adapter(for merchant: Merchant, gateways: MerchantGateways) async -> (any GatewayAdapter)? {
        if let known = adapters[merchant.id] { return known }
        if unusable[merchant.id] != nil { return nil }
        do {
            let adapter = try await gateways.adapter(for: merchant)
            adapters[merchant.id] = adapter
            return adapter
        } catch {
            // The configuration error names the gateway and the missing credential's name, never a value.
            unusable[merchant.id] = "\(error)"
            return nil
        }
    }

    /// Whether the run stopped charging the merchant (its gateway unreachable too many times in a row).
    func isStopped(_ merchantID: String) -> Bool { stoppedMerchants.contains(merchantID) }

    /// Counts a sale's answer towards the merchant's run of unreachable answers (any other answer
    /// ends the run of them). Returns true when this answer reaches `limit`: the merchant is stopped now.
    func noteReachability(_ result: GatewayResult, merchantID: String, limit: Int) -> Bool {
        guard result.errorCode == ChargeRunner.unreachableCode else {
            unreachableInARow[merchantID] = 0
            return false
        }
        let count = unreachableInARow[merchantID, default: 0] + 1
        unreachableInARow[merchantID] = count
        guard count >= limit, !stoppedMerchants.contains(merchantID) else { return false }
        stoppedMerchants.insert(merchantID)
        return true
    }

    /// The merchants the run stopped charging, sorted.
    var stopped: [String] { stoppedMerchants.sorted() }

    /// Why each merchant's adapter could not be built, by merchant id.
    var configurationProblems: [String: String] { unusable }

    /// Why the merchant's gateway adapter cannot be built (a credential missing, an unknown
    /// gateway, a bad endpoint), or nil when it can: known before anything is written or sent.
    func configurationProblem(of merchant: Merchant, gateways: MerchantGateways) async -> String? {
        if await adapter(for: merchant, gateways: gateways) != nil { return nil }
        return unusable[merchant.id] ?? "the gateway adapter cannot be built"
    }
}
