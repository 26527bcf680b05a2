import Foundation
import Payments
public import Vault

/// A charge attempt's outcome with its audit and webhook events built before the write, the same
/// way for every storage engine: the store's write body then only links, inserts and updates.
public struct PreparedOutcome: Sendable {
    /// The transaction with the gateway's answer applied, and the step's new status.
    public var outcome: StepOutcome
    /// The step as claimed.
    public var step: ScheduleStep
    /// Its schedule as claimed.
    public var schedule: Schedule
    /// The attempt's audit event.
    public var audit: PendingAuditEvent
    /// `transaction.approved` / `transaction.declined` for a settled transaction.
    public var transactionEvent: PendingWebhookEvent?
    /// For a step that goes to review: `charge.needs_review`.
    public var reviewEvent: PendingWebhookEvent?
    /// For a failed step whose schedule's policy applies: the new status and its events.
    public var pastDue: (status: ScheduleStatus, audit: PendingAuditEvent, event: PendingWebhookEvent)?
    /// For a settled step of a schedule that ends: the events if it completes the schedule.
    public var completion: (audit: PendingAuditEvent, event: PendingWebhookEvent)?

    /// Builds the events of `item`'s outcome, at the current time.
    /// - Throws: `EncodingError` (not expected).
    public init(_ item: AttemptOutcome) throws {
        let transaction = item.outcome.transaction
        let schedule = item.schedule
        let now = Date()
        outcome = item.outcome
        step = item.step
        self.schedule = schedule
        audit = PendingAuditEvent(item.audit, at: now)
        transactionEvent = try PendingWebhookEvent.outcome(of: transaction, now: now)
        if item.outcome.stepStatus == .needsReview {
            reviewEvent = try PendingWebhookEvent.needsReview(transaction, step: item.step, now: now)
        }
        if item.outcome.stepStatus == .failed, let policy = item.outcome.pastDuePolicy {
            let status: ScheduleStatus = switch policy {
            case .continue: .pastDue
            case .pause: .paused
            case .cancel: .cancelled
            }
            pastDue = (
                status,
                PendingAuditEvent(
                    AuditEntry(
                        merchantID: schedule.merchantID, actor: item.audit.actor, action: "schedule.past_due", objectType: "schedule",
                        objectID: schedule.id, details: ["step": item.step.id, "policy": policy.rawValue, "status": status.rawValue]),
                    at: now),
                try PendingWebhookEvent(
                    .schedulePastDue, merchantID: schedule.merchantID,
                    data: ["scheduleId": .string(schedule.id), "stepId": .string(item.step.id), "status": .string(status.rawValue),
                           "declineCode": .optional(transaction.declineCode)],
                    now: now))
        }
        if item.outcome.stepStatus.isSettled, schedule.plan.endType != "never" {
            completion = (
                PendingAuditEvent(
                    AuditEntry(
                        merchantID: schedule.merchantID, actor: item.audit.actor, action: "schedule.completed", objectType: "schedule",
                        objectID: schedule.id),
                    at: now),
                try PendingWebhookEvent(.scheduleCompleted, merchantID: schedule.merchantID, data: ["scheduleId": .string(schedule.id)], now: now))
        }
    }
}
