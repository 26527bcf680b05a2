public import Foundation
public import Vault

/// Resolves one-off transactions in review (`needs_review`): after checking the gateway's own
/// records (by the transaction's order reference), an operator says whether the customer was charged.
public struct TransactionReviewService: Sendable {
    private let store: any TransactionStore & TransactionReconciliationStore
    private let bindings: TransactionBinding
    private let receipts: OutcomeReceipts

    /// A service over `store`; a resolved transaction is bound (``TransactionBinding``) with the
    /// merchants' keys from `keyring`; `receipts` prepares the e-mail receipt a transaction resolved
    /// as charged sends to the address it keeps (nil for none).
    public init(store: any TransactionStore & TransactionReconciliationStore, keyring: Keyring, receipts: (any TransactionReceipts)? = nil) {
        self.store = store
        bindings = TransactionBinding(keyring: keyring)
        self.receipts = OutcomeReceipts(receipts: receipts, keyring: keyring)
    }

    /// Resolves a transaction in review, in one write with its audit event (`transaction.resolved`),
    /// its original's change and its webhook: `charged` records it approved with the gateway's
    /// transaction id (a refund, capture or void then changes its original as an approved one
    /// would); `notCharged` records it as an error (`not_charged`). Nothing is sent to the gateway.
    /// - Returns: the transaction as resolved.
    /// - Throws: `TransactionError.notFound` (404); `TransactionError.notAllowed` (409) when it is not
    ///   in review, is a schedule step's attempt (resolved through its step), or its stored row was
    ///   altered in the database (`transaction_integrity_failed`).
    public func resolve(id: String, _ resolution: ReviewResolution, merchant: Merchant, actor: String, now: Date = Date()) async throws
        -> Transaction
    {
        guard var transaction = try await store.transaction(merchantID: merchant.id, id: id) else { throw TransactionError.notFound }
        if let stepID = transaction.stepID, let scheduleID = transaction.scheduleID {
            throw TransactionError.notAllowed(
                code: "resolve_the_step",
                message: "This transaction is an attempt of a schedule step; resolve the step: POST /v1/schedules/\(scheduleID)/steps/\(stepID)/resolve.")
        }
        guard transaction.status == .needsReview else { throw Self.notInReview(transaction) }
        // A row altered in the database is never resolved: resolving re-binds it.
        guard await bindings.isIntact(transaction) else {
            throw TransactionError.notAllowed(
                code: TransactionService.integrityFailedCode,
                message: "The stored record of transaction \(transaction.id) failed its integrity check (it was altered in the database); "
                    + "it is not resolved. Check it against the gateway's records.")
        }
        var parentUpdate: ParentUpdate?
        var details = ["type": transaction.type.rawValue, "amount": String(transaction.amount), "currency": transaction.currency.code]
        switch resolution {
        case .charged(let gatewayTransactionID):
            transaction.apply(GatewayResult(outcome: .approved, transactionID: gatewayTransactionID, responseText: "Resolved by an operator: charged."), now: now)
            if let parentID = transaction.parentID, let parent = try await store.transaction(merchantID: merchant.id, id: parentID) {
                parentUpdate = .approved(transaction, of: parent)
            }
            details["outcome"] = "charged"
            details["gatewayTransactionId"] = gatewayTransactionID
        case .notCharged:
            transaction.apply(.error("not_charged", retryable: false, text: "Resolved by an operator: not charged."), now: now)
            details["outcome"] = "not_charged"
        }
        transaction = try await bindings.bound(transaction)
        let audit = AuditEntry(
            merchantID: merchant.id, actor: actor, action: "transaction.resolved", objectType: "transaction", objectID: transaction.id, details: details)
        var notices = try OutcomeNotices.outcome(of: transaction, parties: CallbackParties(merchantName: merchant.name), now: now)
        notices.receipts = await receipts.receipts(of: transaction, merchant: merchant, now: now)
        guard try await store.settleTransaction(transaction, expecting: .needsReview, parentUpdate: parentUpdate, audit: audit, notices: notices) else {
            let current = try await store.transaction(merchantID: merchant.id, id: id)
            throw Self.notInReview(current ?? transaction)
        }
        return transaction
    }

    private static func notInReview(_ transaction: Transaction) -> TransactionError {
        .notAllowed(
            code: "transaction_not_in_review",
            message: "Only a transaction in review (needs_review) can be resolved; this one is \(transaction.status.rawValue).")
    }
}
