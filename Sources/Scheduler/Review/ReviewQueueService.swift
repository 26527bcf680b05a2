public import Foundation
public import Payments
public import Vault

/// Everything of a merchant that waits for an operator (steps and one-off transactions in
/// `needs_review`), resolved many at a time, and looked up again at the gateway on demand: the
/// support work after a gateway outage, without SQL.
///
/// Resolutions go through the single-item services (``StepReviewService``,
/// ``TransactionReviewService``), so the rules, audit events and webhooks are theirs.
public struct ReviewQueueService: Sendable {
    private let store: any ReviewQueueStore & StepReviewStore & TransactionStore
    private let steps: StepReviewService
    private let transactions: TransactionReviewService
    private let gateways: MerchantGateways
    private let bindings: TransactionBinding

    /// Most items one bulk resolution or look-up takes.
    public static let maximumItems = 100

    /// A queue over `store`, resolving through `steps` and `transactions`, looking up through the
    /// merchants' adapters of `gateways`; a row whose binding (under `keyring`) fails is never looked up.
    public init(
        store: any ReviewQueueStore & StepReviewStore & TransactionStore, steps: StepReviewService, transactions: TransactionReviewService,
        gateways: MerchantGateways, keyring: Keyring
    ) {
        self.store = store
        self.steps = steps
        self.transactions = transactions
        self.gateways = gateways
        bindings = TransactionBinding(keyring: keyring)
    }

    /// A page of the merchant's review queue, oldest first: up to `limit` items after the
    /// transaction sequence `afterSequence`.
    public func list(merchant: Merchant, afterSequence: Int64?, limit: Int) async throws -> [ReviewQueueItem] {
        try await store.reviewQueue(merchantID: merchant.id, afterSequence: afterSequence, limit: limit).map(ReviewQueueItem.init)
    }

    /// Resolves each item in order, each in its own write, exactly as its single resolve route
    /// would: an item that cannot be resolved (unknown, not in review, altered in the database) is
    /// refused with that route's error code and the others still go through. The results say, in
    /// the items' order, which were applied.
    public func resolve(_ items: [ReviewItemResolution], merchant: Merchant, actor: String, now: Date = Date()) async throws
        -> [ReviewItemResult]
    {
        var results: [ReviewItemResult] = []
        for item in items {
            let outcome: ReviewItemResult.Outcome
            do {
                switch item.kind {
                case .step:
                    guard let step = try await store.scheduleStep(id: item.id, merchantID: merchant.id) else { throw StepReviewError.notFound("step") }
                    let resolved = try await steps.resolve(
                        scheduleID: step.scheduleID, stepID: step.id, item.resolution, merchant: merchant, actor: actor, now: now)
                    outcome = .applied(status: resolved.status.rawValue)
                case .transaction:
                    let resolved = try await transactions.resolve(id: item.id, item.resolution, merchant: merchant, actor: actor, now: now)
                    outcome = .applied(status: resolved.status.rawValue)
                }
            } catch {
                outcome = Self.refusal(error, kind: item.kind)
            }
            results.append(ReviewItemResult(kind: item.kind, id: item.id, outcome: outcome))
        }
        return results
    }

    /// Asks each item's gateway again, now, what became of its transaction in doubt (the question
    /// the reconciler and the charge runner ask: charges by their order reference, follow-ups by
    /// their original), and reports the answer per item. Nothing is recorded: an operator resolves
    /// with what was found. An item not in review, unknown or altered in the database is not looked up.
    public func lookup(_ items: [ReviewItemReference], merchant: Merchant) async throws -> [ReviewItemResult] {
        var results: [ReviewItemResult] = []
        for item in items {
            results.append(ReviewItemResult(kind: item.kind, id: item.id, outcome: try await lookup(item, merchant: merchant)))
        }
        return results
    }

    private func lookup(_ item: ReviewItemReference, merchant: Merchant) async throws -> ReviewItemResult.Outcome {
        let query: GatewayLookupQuery
        let transaction: Transaction
        switch item.kind {
        case .step:
            guard let step = try await store.scheduleStep(id: item.id, merchantID: merchant.id) else {
                return Self.refusal(StepReviewError.notFound("step"), kind: .step)
            }
            guard step.status == .needsReview,
                let attempt = try await store.latestAttempt(stepID: step.id, attempt: step.attempts, merchantID: merchant.id)
            else { return Self.refusal(StepReviewError.wrongStatus(current: step.status), kind: .step) }
            transaction = attempt
            query = GatewayLookupQuery(reference: attempt.orderReference, gatewayTransactionID: attempt.gatewayTransactionID, since: attempt.createdAt)
        case .transaction:
            guard let found = try await store.transaction(merchantID: merchant.id, id: item.id) else {
                return Self.refusal(TransactionError.notFound, kind: .transaction)
            }
            if let stepID = found.stepID {
                return .refused(code: "resolve_the_step", message: "This transaction is an attempt of a schedule step; look up the step \(stepID).")
            }
            guard found.status == .needsReview else {
                return .refused(
                    code: "transaction_not_in_review", message: "Only a transaction in review (needs_review) is looked up; this one is \(found.status.rawValue).")
            }
            var parent: Transaction?
            if let parentID = found.parentID { parent = try await store.transaction(merchantID: merchant.id, id: parentID) }
            if let parent, !(await bindings.isIntact(parent)) { return Self.integrityFailed(found) }
            transaction = found
            query = TransactionReconciler.query(for: found, parent: parent)
        }
        // What an altered row would ask the gateway comes from the alteration: never looked up.
        guard await bindings.isIntact(transaction) else { return Self.integrityFailed(transaction) }
        guard let adapter = try? await gateways.adapter(for: merchant) else { return .unavailable(reason: "gateway_not_configured") }
        switch await adapter.lookup(query) {
        case .found(let result):
            let outcome = switch result.outcome {
            case .approved: "approved"
            case .declined: "declined"
            case .error: "error"
            case .inDoubt: "in_doubt"
            }
            return .found(outcome: outcome, gatewayTransactionID: result.transactionID)
        case .notFound:
            return .notFound
        case .unavailable(let reason):
            return .unavailable(reason: reason)
        }
    }

    private static func integrityFailed(_ transaction: Transaction) -> ReviewItemResult.Outcome {
        .refused(
            code: TransactionService.integrityFailedCode,
            message: "The stored record of transaction \(transaction.id) failed its integrity check (it was altered in the database); "
                + "it is not looked up. Check it against the gateway's records.")
    }

    /// The single resolve route's error code and message for `error`.
    static func refusal(_ error: any Error, kind: ReviewItemKind) -> ReviewItemResult.Outcome {
        switch error {
        case StepReviewError.notFound(let what):
            return .refused(code: "not_found", message: "No \(what) of this merchant has this id.")
        case StepReviewError.wrongStatus(let current):
            return .refused(
                code: "step_not_in_review", message: "Only a step in review (needs_review) can be resolved; this one is \(current.rawValue).")
        case TransactionError.notFound:
            return .refused(code: "not_found", message: "No one-off transaction of this merchant has this id.")
        case TransactionError.notAllowed(let code, let message):
            return .refused(code: code, message: message)
        default:
            return .refused(
                code: "resolution_failed", message: "This \(kind.rawValue) could not be resolved now (nothing was recorded for it); try it again.")
        }
    }
}
