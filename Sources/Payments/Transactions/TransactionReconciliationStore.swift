public import Foundation
public import Vault

/// Persistence of the reconciler (``TransactionReconciler``) and of operator resolutions.
public protocol TransactionReconciliationStore: Sendable {
    /// Claims up to `limit` one-off transactions (no schedule step) to look up: `in_doubt` since
    /// before `inDoubtBefore`, or `pending` since before `pendingBefore` (their process died before
    /// writing the answer), whose last claim has lapsed at `now`. A claimed transaction is offered
    /// to no other caller (another server, another run) before `claimUntil`, so several servers
    /// share the work without looking anything up twice.
    func claimTransactionsToReconcile(inDoubtBefore: Date, pendingBefore: Date, now: Date, claimUntil: Date, limit: Int) async throws
        -> [Transaction]
    /// Records the settlement of `transaction` only while its stored status is still `expected`
    /// (checked in the same write), with its original's change, its audit event and the `notices`
    /// the domain built (its outcome callback, a review notice), stored as given.
    /// - Returns: false, writing nothing, when another writer settled it first.
    func settleTransaction(
        _ transaction: Transaction, expecting: TransactionStatus, parentUpdate: ParentUpdate?, audit: AuditEntry, notices: OutcomeNotices
    ) async throws -> Bool
    /// How many one-off transactions wait for the gateway (`in_doubt`, and `pending` older than
    /// `pendingBefore`) and for an operator (`needs_review`), of `merchantID` when given.
    func unsettledTransactionCounts(merchantID: String?, pendingBefore: Date) async throws -> UnsettledTransactionCounts
}

/// One-off transactions not yet settled (the `/metrics` gauges and the run summary).
public struct UnsettledTransactionCounts: Sendable, Equatable {
    /// Waiting for the gateway's answer (`in_doubt`, or `pending` left by a process that died).
    public var inDoubt: Int
    /// Waiting for an operator (`needs_review`).
    public var needsReview: Int

    /// Creates counts.
    public init(inDoubt: Int = 0, needsReview: Int = 0) {
        self.inDoubt = inDoubt
        self.needsReview = needsReview
    }
}
