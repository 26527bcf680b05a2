public import Foundation
public import Logging
public import Vault

/// Charges every due step (SPEC §8), exactly once.
///
/// For each claimed step: an attempt found open (recorded before a gateway call whose outcome was
/// never recorded) is settled first with the same idempotency key — looked up at the gateway,
/// re-sent only when the gateway has no record of it. Otherwise a new attempt is written (with the
/// idempotency key `<step id>-a<attempt>`) *before* the gateway call, and its outcome after. Steps
/// are streamed in leased batches, charged with bounded concurrency, so memory stays flat however
/// many are due, and several runners share the work without overlap.
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
        /// In-run retries of gateway errors (timeouts, 5xx), with backoff from `retryBackoff`.
        public var gatewayRetries = 2
        /// First backoff between in-run retries; doubles.
        public var retryBackoff: Duration = .milliseconds(200)
        /// Days ahead open-ended schedules are kept materialized.
        public var horizonDays = 400
        /// An attempt whose outcome is unknown is re-sent (same key) only when the gateway has no
        /// record of it *and* it is older than this: a sale still being processed must not be sent twice.
        public var inDoubtGrace: TimeInterval = 120

        /// Options for a run as of `asOf`.
        public init(asOf: Date) {
            self.asOf = asOf
        }
    }

    private let store: any ChargeRunStore & ScheduleStore
    private let cards: SecureCardService
    private let gateways: MerchantGateways
    private let merchants: any MerchantStore
    private let policy: RetryPolicy
    private let logger: Logger

    /// Creates a runner.
    public init(
        store: any ChargeRunStore & ScheduleStore, cards: SecureCardService, gateways: MerchantGateways, merchants: any MerchantStore,
        policy: RetryPolicy, logger: Logger
    ) {
        self.store = store
        self.cards = cards
        self.gateways = gateways
        self.merchants = merchants
        self.policy = policy
        self.logger = logger
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
        let context = RunContext()
        let concurrency = max(1, options.concurrency)
        try await withThrowingTaskGroup(of: StepResult.self) { group in
            var queue: [DueStep] = []
            var exhausted = false
            var inFlight = 0
            while true {
                while inFlight < concurrency {
                    if queue.isEmpty && !exhausted {
                        let now = Date()
                        queue = try await store.claimDueSteps(
                            asOf: options.asOf, merchantID: options.merchantID, owner: owner, now: now,
                            leaseUntil: now.addingTimeInterval(options.lease), limit: options.batchSize, isOwnerGone: RunnerIdentity.isGone)
                        queue.reverse()
                        exhausted = queue.isEmpty
                    }
                    guard let next = queue.popLast() else { break }
                    group.addTask { await self.charge(next, options: options, owner: owner, actor: actor, context: context) }
                    inFlight += 1
                }
                guard inFlight > 0, let result = try await group.next() else { break }
                inFlight -= 1
                summary.record(result.outcome, amount: result.amount, currency: result.currency)
                if result.recorded.scheduleCompleted { summary.schedulesCompleted += 1 }
                if result.recorded.schedulePastDue { summary.schedulesPastDue += 1 }
                summary.durationSeconds = Self.seconds(since: started)
                progress(summary)
            }
        }
        summary.durationSeconds = Self.seconds(since: started)
        summary.chargesPerSecond = summary.durationSeconds > 0 ? Double(summary.processed) / summary.durationSeconds : 0
        logger.info(
            "charge run finished",
            metadata: ["run": "\(runID)", "processed": "\(summary.processed)", "settled": "\(summary.settled)",
                       "seconds": "\(String(format: "%.2f", summary.durationSeconds))"])
        return summary
    }

    // MARK: - One step

    struct StepResult: Sendable {
        var outcome: ChargeOutcome
        var amount: Int64
        var currency: String
        var recorded = RecordedOutcome()
    }

    private func charge(_ due: DueStep, options: Options, owner: String, actor: String, context: RunContext) async -> StepResult {
        let step = due.step
        let unsettled = StepResult(outcome: .unsettled, amount: step.amount, currency: step.currency.code)
        do {
            guard let merchant = try await context.merchant(due.schedule.merchantID, store: merchants) else {
                try await store.releaseLease(stepID: step.id, owner: owner)
                return unsettled
            }
            var transaction: Transaction
            let result: GatewayResult
            if let open = due.openAttempt {
                transaction = open
                result = await settle(open, due: due, merchant: merchant, options: options, context: context)
            } else {
                let attempt = step.attempts + 1
                transaction = Transaction(
                    id: OpaqueToken.make(prefix: "txn_", randomBits: 100), merchantID: merchant.id, type: .sale, amount: step.amount,
                    currency: step.currency, gateway: merchant.gateway.name, now: Date(), idempotencyKey: "\(step.id)-a\(attempt)",
                    orderReference: Self.orderReference(stepID: step.id, attempt: attempt))
                transaction.secureCardReference = due.schedule.secureCardReference
                transaction.scheduleID = due.schedule.id
                transaction.stepID = step.id
                transaction.attempt = attempt
                transaction.description = due.schedule.description
                let card = try? await cards.cardForCharge(reference: due.schedule.secureCardReference, merchantID: merchant.id)
                transaction.maskedNumber = card?.pan.masked
                transaction.cardType = card?.pan.brand.rawValue
                try await store.recordAttempt(
                    transaction, step: step,
                    audit: AuditEntry(merchantID: merchant.id, actor: actor, action: "charge.attempt_started", objectType: "transaction",
                                      objectID: transaction.id, details: ["step": step.id, "attempt": String(attempt), "schedule": due.schedule.id]))
                result = await charge(transaction, card: card, due: due, merchant: merchant, options: options, context: context)
            }
            transaction.apply(result, now: Date())
            var outcome = stepOutcome(transaction, due: due)
            outcome.stepOutcome.holdBack = options.inDoubtGrace
            let recorded = try await store.recordOutcome(
                outcome.stepOutcome, step: step, schedule: due.schedule,
                audit: AuditEntry(merchantID: merchant.id, actor: actor, action: "charge.\(transaction.status.rawValue)", objectType: "transaction",
                                  objectID: transaction.id,
                                  details: ["step": step.id, "attempt": String(transaction.attempt ?? 0), "schedule": due.schedule.id,
                                            "amount": String(transaction.amount), "currency": transaction.currency.code,
                                            "stepStatus": outcome.stepOutcome.stepStatus.rawValue]))
            return StepResult(outcome: outcome.summary, amount: step.amount, currency: step.currency.code, recorded: recorded)
        } catch {
            logger.error("could not record a charge", metadata: ["step": "\(step.id)", "error": "\(error)"])
            try? await store.releaseLease(stepID: step.id, owner: owner)
            return unsettled
        }
    }

    /// A new attempt: declined locally when the card is gone or expires before the due date,
    /// otherwise sent, with in-run retries for gateway errors (same idempotency key).
    private func charge(
        _ transaction: Transaction, card: (pan: PrimaryAccountNumber, expiry: CardExpiry, holderName: String?)?, due: DueStep, merchant: Merchant,
        options: Options, context: RunContext
    ) async -> GatewayResult {
        guard let card else {
            return GatewayResult(outcome: .declined(code: "card_unavailable", category: .hard), responseText: "The secure card is deleted or purged.")
        }
        if card.expiry.year * 12 + card.expiry.month < due.step.date.year * 12 + due.step.date.month {
            return GatewayResult(outcome: .declined(code: "expired_card", category: .hard), responseText: "Declined by the vault: the card expires before the due date.")
        }
        guard let adapter = await context.adapter(for: merchant, gateways: gateways) else {
            return .error("gateway_not_configured", retryable: true)
        }
        let request = ChargeRequest(
            idempotencyKey: transaction.idempotencyKey, reference: transaction.orderReference,
            amount: Money(minorUnits: transaction.amount, currency: transaction.currency),
            card: PaymentCard(pan: card.pan, expiry: card.expiry, holderName: card.holderName, cvv: nil, postalCode: nil),
            description: transaction.description)
        var result = await adapter.sale(request)
        var attempt = 0
        while attempt < options.gatewayRetries {
            switch result.outcome {
            case .error(_, retryable: true):
                break
            case .inDoubt:
                // Never re-send an in-doubt sale in the same run: the gateway may still be
                // processing it. A later run settles it by lookup after the grace period.
                if case .found(let found) = await adapter.lookup(reference: transaction.orderReference, gatewayTransactionID: result.transactionID) {
                    return found
                }
                return result
            default:
                return result
            }
            try? await Task.sleep(for: options.retryBackoff * (1 << attempt))
            attempt += 1
            result = await adapter.sale(request)
        }
        return result
    }

    /// An open attempt: look it up by its reference; re-send with the same key only when the
    /// gateway has no record of it.
    private func settle(_ open: Transaction, due: DueStep, merchant: Merchant, options: Options, context: RunContext) async -> GatewayResult {
        if [.approved, .declined].contains(open.status) {
            return GatewayResult(
                outcome: open.status == .approved ? .approved : .declined(code: open.declineCode ?? "card_declined", category: DeclineCategory(rawValue: open.declineCategory ?? "hard") ?? .hard),
                transactionID: open.gatewayTransactionID, authCode: open.authCode, responseCode: open.responseCode, responseText: open.responseText)
        }
        guard let adapter = await context.adapter(for: merchant, gateways: gateways) else {
            return .error("gateway_not_configured", retryable: true)
        }
        switch await adapter.lookup(reference: open.orderReference, gatewayTransactionID: open.gatewayTransactionID) {
        case .found(let result):
            return result
        case .unavailable(let reason):
            return .inDoubt("lookup_unavailable: \(reason)")
        case .notFound:
            guard Date().timeIntervalSince(open.updatedAt) >= options.inDoubtGrace else {
                return .inDoubt("awaiting_gateway: not found yet, inside the grace period")
            }
            let card = try? await cards.cardForCharge(reference: due.schedule.secureCardReference, merchantID: merchant.id)
            return await charge(open, card: card, due: due, merchant: merchant, options: options, context: context)
        }
    }

    private func stepOutcome(_ transaction: Transaction, due: DueStep) -> (stepOutcome: StepOutcome, summary: ChargeOutcome) {
        let attempt = transaction.attempt ?? 1
        switch transaction.status {
        case .approved:
            return (StepOutcome(transaction: transaction, stepStatus: .approved), .approved)
        case .declined where transaction.declineCategory == "soft":
            let previous = due.step.nextAttemptAt ?? due.step.dueAt
            if let next = policy.nextAttempt(after: attempt, previousDueAt: previous) {
                return (StepOutcome(transaction: transaction, stepStatus: .retryPending, nextAttemptAt: next), .retryScheduled)
            }
            return (StepOutcome(transaction: transaction, stepStatus: .failed, pastDuePolicy: policy.pastDuePolicy), .failed)
        case .declined:
            let summary: ChargeOutcome = transaction.declineCode == "expired_card" && transaction.gatewayTransactionID == nil ? .expiredCard : .failed
            return (StepOutcome(transaction: transaction, stepStatus: .failed, pastDuePolicy: policy.pastDuePolicy), summary)
        default:
            return (StepOutcome(transaction: transaction, stepStatus: .processing), .unsettled)
        }
    }

    // MARK: - Horizons

    /// Materializes open-ended schedules' steps through today + horizon in each schedule's zone.
    private func extendHorizons(_ options: Options) async throws -> Int {
        var extended = 0
        for schedule in try await store.openEndedSchedules(merchantID: options.merchantID) {
            guard let zone = TimeZone(identifier: schedule.plan.timeZone ?? "UTC"), let through = schedule.materializedThrough else { continue }
            let target = DueInstant.civilDate(of: options.asOf, in: zone).adding(days: options.horizonDays)
            guard target > through else { continue }
            let rules = PlanRules(defaultTimeZone: zone, maxCount: Int.max, today: .min)
            guard let plan = try? Plan(validating: schedule.plan, rules: rules) else { continue }
            let last = try await store.lastStep(scheduleID: schedule.id)
            let planned = plan.steps(after: last?.sequence ?? 0, horizon: target, limit: options.horizonDays * 2 + 10)
            var updated = schedule
            updated.materializedThrough = target
            updated.updatedAt = Date()
            let steps = planned.map { step in
                ScheduleStep(
                    id: OpaqueToken.make(prefix: "stp_", randomBits: 100), scheduleID: schedule.id, sequence: step.sequence, date: step.date,
                    dueAt: step.dueAt, amount: schedule.amount, currency: schedule.currency, status: .scheduled, attempts: 0, nextAttemptAt: nil)
            }
            do {
                try await store.saveSchedule(
                    updated, expectedStatus: schedule.status, stepUpdates: [], newSteps: steps,
                    audit: AuditEntry(merchantID: schedule.merchantID, actor: "runner", action: "schedule.extended", objectType: "schedule",
                                      objectID: schedule.id, details: ["through": target.iso, "newSteps": String(steps.count)]))
                extended += 1
            } catch is ScheduleError {
                continue
            } catch let error as SQLiteError where error.isUniqueViolation {
                continue
            }
        }
        return extended
    }

    /// An order reference of at most 20 characters, unique per step and attempt.
    static func orderReference(stepID: String, attempt: Int) -> String {
        let suffix = "a\(attempt)"
        let body = stepID.split(separator: "_").last.map(String.init) ?? stepID
        return "s" + String(body.suffix(19 - suffix.count)) + suffix
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

/// Per-run caches: merchants and their adapters (credentials are opened once per run).
actor RunContext {
    private var merchants: [String: Merchant] = [:]
    private var adapters: [String: any GatewayAdapter] = [:]

    func merchant(_ id: String, store: any MerchantStore) async throws -> Merchant? {
        if let known = merchants[id] { return known }
        let merchant = try await store.merchant(id: id)
        merchants[id] = merchant
        return merchant
    }

    func adapter(for merchant: Merchant, gateways: MerchantGateways) async -> (any GatewayAdapter)? {
        if let known = adapters[merchant.id] { return known }
        guard let adapter = try? await gateways.adapter(for: merchant) else { return nil }
        adapters[merchant.id] = adapter
        return adapter
    }
}
