public import Foundation
public import Vault

/// How a schedule moves (past due by policy, completed, expired, cancelled with its card), decided
/// by the scheduler and applied by a storage engine as one guarded update: only from the statuses
/// in ``from`` (the status in the database at the write, which the merchant may have changed
/// since the claim), and for a completion only when no open step is left. Its events are
/// appended only when the update changed the schedule.
public struct ScheduleTransition: Sendable, Equatable {
    /// The schedule.
    public var scheduleID: String
    /// The statuses it may move from.
    public var from: [ScheduleStatus]
    /// The status it moves to.
    public var to: ScheduleStatus
    /// The statuses of its steps cancelled with it (none when empty).
    public var cancelledSteps: [StepStatus]
    /// Whether it moves only when none of its steps is open (``StepStatus/open``): completion.
    public var requiresNoOpenStep: Bool
    /// The schedule's `updated_at` (and `paused_at` when it pauses).
    public var at: Date
    /// The audit event appended when it moves.
    public var audit: PendingAuditEvent
    /// The webhook event queued when it moves, if any.
    public var event: PendingWebhookEvent?

    /// Creates a transition.
    public init(
        scheduleID: String, from: [ScheduleStatus], to: ScheduleStatus, cancelledSteps: [StepStatus] = [], requiresNoOpenStep: Bool = false,
        at: Date, audit: PendingAuditEvent, event: PendingWebhookEvent?
    ) {
        self.scheduleID = scheduleID
        self.from = from
        self.to = to
        self.cancelledSteps = cancelledSteps
        self.requiresNoOpenStep = requiresNoOpenStep
        self.at = at
        self.audit = audit
        self.event = event
    }

    /// The schedule's new `paused_at`: ``at`` when it pauses, else nil (left as it is).
    public var pausedAt: Date? { to == .paused ? at : nil }
}

extension ScheduleTransition {
    /// A schedule never confirmed in time: `pending_confirmation` to `expired`, every step
    /// cancelled, audited `schedule.expired` by `system`.
    public static func expiry(scheduleID: String, merchantID: String, at date: Date) -> ScheduleTransition {
        ScheduleTransition(
            scheduleID: scheduleID, from: [.pendingConfirmation], to: .expired, cancelledSteps: StepStatus.allCases, at: date,
            audit: PendingAuditEvent(
                AuditEntry(merchantID: merchantID, actor: "system", action: "schedule.expired", objectType: "schedule", objectID: scheduleID),
                at: Date()),
            event: nil)
    }

    /// A schedule still open (``ScheduleStatus/open``) whose card is deleted: `cancelled`, its
    /// steps waiting for a charge cancelled with it, audited `schedule.cancelled` by the actor
    /// deleting the card.
    public static func cancellation(ofScheduleOfDeletedCard scheduleID: String, merchantID: String, actor: String, at date: Date) -> ScheduleTransition {
        ScheduleTransition(
            scheduleID: scheduleID, from: ScheduleStatus.open, to: .cancelled, cancelledSteps: StepStatus.cancelledWithSchedule, at: date,
            audit: PendingAuditEvent(
                AuditEntry(
                    merchantID: merchantID, actor: actor, action: "schedule.cancelled", objectType: "schedule", objectID: scheduleID,
                    details: ["reason": "secure card deleted"]),
                at: Date()),
            event: nil)
    }
}
