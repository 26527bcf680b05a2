public import Foundation
public import Vault

/// How a schedule moves after a charge (past due by policy, completed), decided by the scheduler
/// and applied by a storage engine as one guarded update: only from the statuses in ``from`` (the
/// status in the database at the write, which the merchant may have changed since the claim),
/// and for a completion only when no open step is left. Its events are appended only when the
/// update changed the schedule.
public struct ScheduleTransition: Sendable, Equatable {
    /// The schedule.
    public var scheduleID: String
    /// The statuses it may move from.
    public var from: [ScheduleStatus]
    /// The status it moves to.
    public var to: ScheduleStatus
    /// Whether its steps waiting for a charge (``StepStatus/cancelledWithSchedule``) are cancelled with it.
    public var cancelsWaitingSteps: Bool
    /// Whether it moves only when none of its steps is open (``StepStatus/open``): completion.
    public var requiresNoOpenStep: Bool
    /// The schedule's `updated_at` (and `paused_at` when it pauses).
    public var at: Date
    /// The audit event appended when it moves.
    public var audit: PendingAuditEvent
    /// The webhook event queued when it moves.
    public var event: PendingWebhookEvent

    /// Creates a transition.
    public init(
        scheduleID: String, from: [ScheduleStatus], to: ScheduleStatus, cancelsWaitingSteps: Bool = false, requiresNoOpenStep: Bool = false,
        at: Date, audit: PendingAuditEvent, event: PendingWebhookEvent
    ) {
        self.scheduleID = scheduleID
        self.from = from
        self.to = to
        self.cancelsWaitingSteps = cancelsWaitingSteps
        self.requiresNoOpenStep = requiresNoOpenStep
        self.at = at
        self.audit = audit
        self.event = event
    }

    /// The schedule's new `paused_at`: ``at`` when it pauses, else nil (left as it is).
    public var pausedAt: Date? { to == .paused ? at : nil }
}
