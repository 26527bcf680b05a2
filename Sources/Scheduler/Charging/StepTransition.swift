public import Foundation
import Payments
public import Vault

/// What a step's write requires of the step's row, so that a write based on a stale view of the
/// step changes nothing: the condition of the guarded update the storage engines apply.
public enum StepWriteGuard: Sendable, Equatable {
    /// The step is still leased to this runner (``RunnerIdentity``) and still one a run charges
    /// (``StepStatus/chargedByRuns``): a runner whose lease expired and was taken over, or whose
    /// step was skipped or cancelled since its claim, writes nothing more
    /// (``StepLeaseError/leaseLost(stepID:)``) and calls no gateway.
    case leasedBy(String)
    /// The step still has this status: an operator's resolution of a step in review
    /// (``StepReviewError/wrongStatus(current:)`` otherwise).
    case hasStatus(StepStatus)
    /// Written whatever the step's lease and status: a writer that leased nothing (tools, tests).
    case unguarded

    /// The error when the guarded update changed no row; nil for ``unguarded``. `currentStatus`
    /// is the step's status read after the refused update (read only when ``status`` is set; nil
    /// when the step is gone).
    public func refusal(stepID: String, currentStatus: StepStatus?) -> (any Error)? {
        switch self {
        case .leasedBy: return StepLeaseError.leaseLost(stepID: stepID)
        case .hasStatus: return StepReviewError.wrongStatus(current: currentStatus ?? .cancelled)
        case .unguarded: return nil
        }
    }

    /// The lease owner the update requires, if any.
    public var leaseOwner: String? {
        if case .leasedBy(let owner) = self { return owner }
        return nil
    }

    /// The status the update requires, if any.
    public var status: StepStatus? {
        if case .hasStatus(let status) = self { return status }
        return nil
    }
}

/// How one step moves, decided by the scheduler and applied by a storage engine as one guarded
/// update (`UPDATE ... WHERE id = <step> AND <guard>`): when the guard no longer holds, nothing of
/// the transition is written, its events included, and the engine reports the guard's refusal.
public struct StepTransition: Sendable, Equatable {
    /// What the update sets besides the status.
    public enum Effect: Sendable, Equatable {
        /// An attempt starts: the step's attempt count becomes `number`; the runner keeps its lease.
        case startsAttempt(number: Int)
        /// An attempt's outcome: the next attempt's time (nil for none) and the lease released; an
        /// unsettled step is held back (a lease without owner until `holdBackUntil`) so the same
        /// run does not claim it again at once, and a later lookup gives the gateway time to finish.
        case settlesAttempt(nextAttemptAt: Date?, holdBackUntil: Date?)
    }

    /// The step.
    public var stepID: String
    /// Its new status.
    public var to: StepStatus
    /// What the update sets besides the status.
    public var effect: Effect
    /// What the step's row must still be for the update to apply.
    public var requires: StepWriteGuard
    /// The step's `updated_at`.
    public var at: Date
    /// Audit events appended only when the update applies, in order.
    public var audits: [PendingAuditEvent]
    /// Webhook events queued only when the update applies, in order.
    public var webhooks: [PendingWebhookEvent]
    /// E-mail receipts queued only when the update applies (an approved charge's).
    public var receipts: [PendingReceipt]

    /// Creates a transition.
    public init(
        stepID: String, to: StepStatus, effect: Effect, requires: StepWriteGuard, at: Date, audits: [PendingAuditEvent] = [],
        webhooks: [PendingWebhookEvent] = [], receipts: [PendingReceipt] = []
    ) {
        self.stepID = stepID
        self.to = to
        self.effect = effect
        self.requires = requires
        self.at = at
        self.audits = audits
        self.webhooks = webhooks
        self.receipts = receipts
    }
}

extension ChargeAttempt {
    /// The step's move when this attempt is written before its gateway call: `processing` with
    /// the attempt's number, while still leased to ``leaseOwner`` when one is given.
    public var stepTransition: StepTransition {
        StepTransition(
            stepID: step.id, to: .processing, effect: .startsAttempt(number: transaction.attempt ?? step.attempts),
            requires: leaseOwner.map(StepWriteGuard.leasedBy) ?? .unguarded, at: transaction.updatedAt)
    }
}
