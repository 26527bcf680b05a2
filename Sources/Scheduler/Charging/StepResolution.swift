public import Foundation
public import Payments
public import Vault

/// An operator's answer for a step in review (`needs_review`), after checking with the gateway:
/// the same answer as for a one-off transaction in review.
public typealias StepResolution = ReviewResolution

/// Why a step could not be resolved.
public enum StepReviewError: Error, Equatable, Sendable {
    /// No such schedule or step for this merchant (404).
    case notFound(String)
    /// The step is not in review (409).
    case wrongStatus(current: StepStatus)
}

/// Reads what resolving a step needs.
public protocol StepReviewStore: Sendable {
    /// The step's latest attempt (the one in review), of `merchantID`.
    func latestAttempt(stepID: String, attempt: Int, merchantID: String) async throws -> Transaction?
    /// Steps in review (`needs_review`), of `merchantID` when given.
    func stepsInReview(merchantID: String?) async throws -> Int
}

/// Resolves steps in review (`needs_review`): an operator says whether the customer was charged.
public struct StepReviewService: Sendable {
    private let store: any ChargeRunStore & ScheduleStore & StepReviewStore
    private let policy: RetryPolicy
    private let bindings: TransactionBinding
    private let contacts: ScheduleContactOpener?

    /// A service over `store`; `not_charged` steps fall due again under `policy`; the resolved
    /// attempt is bound (``TransactionBinding``) with the merchants' keys from `keyring`. With
    /// `contacts`, a step resolved as charged queues the e-mail receipt its schedule asks for, as
    /// the charge run would have.
    public init(
        store: any ChargeRunStore & ScheduleStore & StepReviewStore, policy: RetryPolicy, keyring: Keyring, contacts: ScheduleContactOpener? = nil
    ) {
        self.store = store
        self.policy = policy
        bindings = TransactionBinding(keyring: keyring)
        self.contacts = contacts
    }

    /// Resolves a step in review, in one write with its audit event (`charge.resolved`) and webhooks.
    ///
    /// `charged`: the attempt is recorded approved with the gateway's transaction id, the step is
    /// `approved` (the schedule completes if it was its last open step; `transaction.approved`
    /// is sent). `notCharged`: the attempt is recorded as an error (`not_charged`) and the step
    /// falls due again under the retry policy (`retry_pending` at the policy's next attempt, or
    /// `failed` with the past-due policy when no attempt remains).
    /// - Returns: the step as resolved.
    /// - Throws: ``StepReviewError`` (404 unknown schedule or step, 409 when not in review).
    public func resolve(
        scheduleID: String, stepID: String, _ resolution: StepResolution, merchant: Merchant, actor: String, now: Date = Date()
    ) async throws -> ScheduleStep {
        guard let schedule = try await store.schedule(merchantID: merchant.id, id: scheduleID) else { throw StepReviewError.notFound("schedule") }
        guard let step = try await store.steps(scheduleID: scheduleID).first(where: { $0.id == stepID }) else {
            throw StepReviewError.notFound("step")
        }
        guard step.status == .needsReview else { throw StepReviewError.wrongStatus(current: step.status) }
        guard var transaction = try await store.latestAttempt(stepID: step.id, attempt: step.attempts, merchantID: merchant.id) else {
            throw StepReviewError.wrongStatus(current: step.status)
        }
        transaction.updatedAt = now
        var outcome: StepOutcome
        var emailReceipt: PendingReceipt?
        var details = ["step": step.id, "schedule": schedule.id, "attempt": String(step.attempts)]
        switch resolution {
        case .charged(let gatewayTransactionID):
            transaction.status = .approved
            transaction.gatewayTransactionID = gatewayTransactionID
            transaction.errorCode = nil
            transaction.responseText = "Resolved by an operator: charged."
            transaction = try await bindings.bound(transaction)
            outcome = StepOutcome(transaction: transaction, stepStatus: .approved)
            // A receipt that cannot be prepared now (the merchant's data key unavailable) is left
            // out rather than holding back the resolution.
            emailReceipt = try? await contacts?.emailReceipt(of: transaction, schedule: schedule, merchant: merchant, now: now)
            details["outcome"] = "charged"
            details["gatewayTransactionId"] = gatewayTransactionID
        case .notCharged:
            transaction.status = .error
            transaction.errorCode = "not_charged"
            transaction.responseText = "Resolved by an operator: not charged."
            let previous = step.nextAttemptAt ?? step.dueAt
            if let next = policy.nextAttempt(after: max(1, step.attempts), previousDueAt: previous) {
                outcome = StepOutcome(transaction: transaction, stepStatus: .retryPending, nextAttemptAt: next)
            } else {
                outcome = StepOutcome(transaction: transaction, stepStatus: .failed, pastDuePolicy: policy.pastDuePolicy)
            }
            details["outcome"] = "not_charged"
        }
        outcome.expectedStepStatus = .needsReview
        details["stepStatus"] = outcome.stepStatus.rawValue
        let audit = AuditEntry(
            merchantID: merchant.id, actor: actor, action: "charge.resolved", objectType: "transaction", objectID: transaction.id, details: details)
        let written = try await store.recordOutcomes([
            AttemptOutcome(
                outcome: outcome, step: step, schedule: schedule, audit: audit, parties: CallbackParties(merchantName: merchant.name),
                emailReceipt: emailReceipt)
        ])
        if case .failure(let error) = written.first { throw error }
        guard let resolved = try await store.steps(scheduleID: scheduleID).first(where: { $0.id == stepID }) else {
            throw StepReviewError.notFound("step")
        }
        return resolved
    }
}
