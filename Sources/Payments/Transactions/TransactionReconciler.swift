public import Foundation
public import Logging
public import Vault

/// Settles every one-off transaction whose gateway answer was lost (`in_doubt`) or whose process
/// died before writing it (`pending`): sales, authorizations, verifications, credits, captures,
/// voids and refunds made over the API. (A schedule step's attempts are settled the same way, by
/// the same ``InDoubtPolicy``, when the charge runner claims the step.)
///
/// Each transaction is looked up at its gateway (charges by the order reference sent with them,
/// follow-ups by their original and kind) and gets what the gateway proves: its outcome (status,
/// gateway id, webhook), "not charged" when the gateway proves it never arrived, or `needs_review`
/// when it cannot prove either way. Nothing is ever sent to the gateway again. Servers share the
/// work through claims (a transaction is looked up by one of them at a time), and every write is
/// guarded by the status that was read, so a late answer and the reconciler never both settle it.
public struct TransactionReconciler: Sendable {
    private let store: any TransactionStore & TransactionReconciliationStore
    private let gateways: MerchantGateways
    private let merchants: any MerchantStore
    private let policy: InDoubtPolicy
    private let logger: Logger
    private let bindings: TransactionBinding
    private let receipts: OutcomeReceipts

    /// How long a request's gateway call may still be running after its transaction was recorded:
    /// a `pending` transaction older than the grace period and this is taken as left by a process
    /// that died (a request's gateway call is bounded by the gateway timeout, 30 s, and the request
    /// by the server's request timeout).
    public static let requestBound: TimeInterval = 60
    /// How many transactions one claim takes.
    public var batchSize = 100
    /// How many look-ups run at once.
    public var concurrency = 8
    /// The actor named in audit events.
    public var actor = "reconciler"

    /// Creates a reconciler.
    /// - Parameter receipts: prepares the e-mail receipt an outcome found approved sends to the
    ///   address the transaction keeps, as the request's own answer would have; nil for none.
    public init(
        store: any TransactionStore & TransactionReconciliationStore, gateways: MerchantGateways, merchants: any MerchantStore,
        policy: InDoubtPolicy, keyring: Keyring, logger: Logger, receipts: (any TransactionReceipts)? = nil
    ) {
        bindings = TransactionBinding(keyring: keyring)
        self.receipts = OutcomeReceipts(receipts: receipts, keyring: keyring)
        self.store = store
        self.gateways = gateways
        self.merchants = merchants
        self.policy = policy
        self.logger = logger
    }

    /// Looks up every transaction due for it now and settles what the gateways prove. A transaction
    /// still in doubt is looked up again after `interval` (by whichever server claims it then).
    /// - Returns: what became of the transactions looked up.
    public func reconcile(now: Date = Date(), interval: TimeInterval = 60) async throws -> ReconciliationSummary {
        var summary = ReconciliationSummary()
        while true {
            let claimed = try await store.claimTransactionsToReconcile(
                inDoubtBefore: now.addingTimeInterval(-policy.grace), pendingBefore: now.addingTimeInterval(-(policy.grace + Self.requestBound)),
                now: now, claimUntil: now.addingTimeInterval(max(1, interval)), limit: batchSize)
            let verdicts = await withTaskGroup(of: ReconciliationSummary.Verdict?.self) { group in
                var results: [ReconciliationSummary.Verdict?] = []
                for (index, transaction) in claimed.enumerated() {
                    if index >= concurrency, let next = await group.next() { results.append(next) }
                    group.addTask { await self.reconcile(transaction, now: now) }
                }
                for await next in group { results.append(next) }
                return results
            }
            verdicts.compactMap { $0 }.forEach { summary.count($0) }
            if claimed.count < batchSize { return summary }
        }
    }

    /// The error code of a transaction sent to review because its row, or its original's, was altered.
    public static let integrityFailedCode = "integrity_failed"

    /// Looks up one transaction and records what the gateway proves; nil when nothing was written.
    private func reconcile(_ claimed: Transaction, now: Date) async -> ReconciliationSummary.Verdict? {
        do {
            guard let merchant = try await merchants.merchant(id: claimed.merchantID) else { return nil }
            var parent: Transaction?
            if let parentID = claimed.parentID {
                parent = try await store.transaction(merchantID: merchant.id, id: parentID)
            }
            let adapter = try? await gateways.adapter(for: merchant)
            // A row altered in the database (or whose original was) is not looked up: what the
            // look-up asks and what its answer would change come from the altered row. It goes to
            // review as it stands, its binding left failing so no resolution launders it.
            var intact = await bindings.isIntact(claimed)
            if intact, let parent { intact = await bindings.isIntact(parent) }
            let verdict: InDoubtVerdict
            if intact {
                let lookup = await adapter?.lookup(Self.query(for: claimed, parent: parent)) ?? .unavailable("gateway_not_configured")
                verdict = policy.verdict(lookup, for: claimed, now: now)
            } else {
                verdict = .needsReview(reason: Self.integrityFailedCode)
            }
            var transaction = claimed
            var parentUpdate: ParentUpdate?
            var review: PendingWebhookEvent?
            // The reconciler does not open cards: the callback names the merchant, not the holder.
            let parties = CallbackParties(merchantName: merchant.name)
            let kind: ReconciliationSummary.Verdict
            switch verdict {
            case .settled(let result):
                transaction.apply(result, now: now)
                if transaction.status == .approved, let parent { parentUpdate = .approved(transaction, of: parent) }
                kind = .settled
            case .provenAbsent:
                transaction.apply(.error("not_charged", retryable: false, text: "The gateway has no record of this transaction: nothing was charged, and nothing is sent again."), now: now)
                kind = .notCharged
            case .stillInDoubt(let result):
                // Looked up again after the claim lapses; a `pending` one left by a dead process becomes
                // `in_doubt`, so it shows as what it is.
                guard claimed.status == .pending else { return .stillInDoubt }
                transaction.apply(result, now: now)
                kind = .stillInDoubt
            case .needsReview(let reason):
                transaction.status = .needsReview
                transaction.errorCode = reason
                transaction.updatedAt = now
                review = try PendingWebhookEvent.needsReview(transaction, now: now)
                kind = .needsReview
                logger.warning("transaction needs review: the gateway cannot prove whether it went through",
                               metadata: ["transaction": "\(transaction.id)", "merchant": "\(merchant.id)", "reason": "\(reason)",
                                          "orderReference": "\(transaction.orderReference)"])
            }
            let action = !intact ? TransactionService.integrityFailedAction
                : kind == .needsReview ? "transaction.needs_review" : "transaction.reconciled"
            let audit = AuditEntry(
                merchantID: merchant.id, actor: actor, action: action,
                objectType: "transaction", objectID: transaction.id,
                details: ["type": transaction.type.rawValue, "status": transaction.status.rawValue, "was": claimed.status.rawValue,
                          "amount": String(transaction.amount), "currency": transaction.currency.code])
            // The outcome may bring the gateway's id: bound again (a merchant off-boarded meanwhile
            // keeps the old binding, and with its keys destroyed nothing of its is sent anyway).
            if intact { transaction = (try? await bindings.bound(transaction)) ?? transaction }
            var notices = try OutcomeNotices.outcome(of: transaction, parties: parties, now: now)
            if let review { notices.webhooks.append(review) }
            if intact { notices.receipts = await receipts.receipts(of: transaction, merchant: merchant, now: now) }
            let written = try await store.settleTransaction(
                transaction, expecting: claimed.status, parentUpdate: parentUpdate, audit: audit, notices: notices)
            if written, let adapter { await releaseVerificationHold(transaction, adapter: adapter) }
            return written ? kind : nil
        } catch {
            logger.error("could not reconcile a transaction", metadata: ["transaction": "\(claimed.id)", "error": "\(error)"])
            return nil
        }
    }

    /// A verification found approved whose gateway verifies with an authorization holds funds on
    /// the card: it is voided, as the verification itself would have done had its answer come back.
    private func releaseVerificationHold(_ transaction: Transaction, adapter: any GatewayAdapter) async {
        guard transaction.type == .verify, transaction.status == .approved, adapter.verificationHoldsFunds,
              let gatewayTransactionID = transaction.gatewayTransactionID else { return }
        let void = await adapter.void(FollowUpRequest(
            idempotencyKey: transaction.idempotencyKey + ":void", reference: transaction.orderReference, gatewayTransactionID: gatewayTransactionID))
        if !void.isApproved {
            logger.warning("verification authorization found by the reconciler not voided",
                           metadata: ["transaction": "\(transaction.id)", "outcome": "\(void.outcome)"])
        }
    }

    /// What to look up for `transaction`: a charge by its order reference; a follow-up by its kind and
    /// its original's gateway id. Operators' look-ups of transactions in review ask the same.
    public static func query(for transaction: Transaction, parent: Transaction?) -> GatewayLookupQuery {
        let amount = Money(minorUnits: transaction.amount, currency: transaction.currency)
        let parentID = parent?.gatewayTransactionID ?? ""
        let kind: GatewayLookupQuery.Kind = switch transaction.type {
        case .refund: .refund(parentTransactionID: parentID, amount: amount)
        case .capture: .capture(parentTransactionID: parentID, amount: amount)
        case .void: .void(parentTransactionID: parentID)
        default: .charge
        }
        return GatewayLookupQuery(
            reference: transaction.orderReference, gatewayTransactionID: transaction.gatewayTransactionID, since: transaction.createdAt, kind: kind)
    }
}

/// What one reconciliation pass did.
public struct ReconciliationSummary: Sendable, Equatable {
    /// What became of one transaction.
    public enum Verdict: String, Sendable, Equatable {
        /// The gateway proved its outcome.
        case settled
        /// The gateway proved it never arrived.
        case notCharged = "not_charged"
        /// Not settled yet; looked up again later.
        case stillInDoubt = "still_in_doubt"
        /// Sent to an operator.
        case needsReview = "needs_review"
    }

    /// Settled with the gateway's outcome.
    public var settled = 0
    /// Proven never to have reached the gateway.
    public var notCharged = 0
    /// Still in doubt.
    public var stillInDoubt = 0
    /// Sent to review.
    public var needsReview = 0

    /// An empty summary.
    public init() {}

    mutating func count(_ verdict: Verdict) {
        switch verdict {
        case .settled: settled += 1
        case .notCharged: notCharged += 1
        case .stillInDoubt: stillInDoubt += 1
        case .needsReview: needsReview += 1
        }
    }

    /// How many transactions were looked up and written or left.
    public var total: Int { settled + notCharged + stillInDoubt + needsReview }
}
