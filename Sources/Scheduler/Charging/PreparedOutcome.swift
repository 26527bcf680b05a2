import Foundation
public import Payments
import Vault

/// A charge attempt's outcome as the transitions the storage engines apply, built before the
/// write the same way for every engine: the step's guarded move with the attempt's events, the
/// schedule's past-due move and its completion, each with its events. The store's write body
/// then only applies them, links, inserts and updates.
public struct PreparedOutcome: Sendable {
    /// The transaction with the gateway's answer applied, and the step's new status.
    public var outcome: StepOutcome
    /// The step as claimed.
    public var step: ScheduleStep
    /// Its schedule as claimed.
    public var schedule: Schedule
    /// The step's move, guarded by the runner's lease (or, for an operator's resolution, by the
    /// step's status), with the charge's audit event and its `transaction.approved` /
    /// `transaction.declined` and `charge.needs_review` webhook events.
    public var stepTransition: StepTransition
    /// For a failed step whose schedule's past-due policy applies: the schedule's move.
    public var pastDue: ScheduleTransition?
    /// For a settled step of a schedule that ends: the schedule's completion, if this was its
    /// last open step.
    public var completion: ScheduleTransition?

    /// The transaction to write, with the gateway's answer applied.
    public var transaction: Transaction { outcome.transaction }

    /// Builds the transitions and events of `item`'s outcome, at the current time.
    /// - Throws: `EncodingError` (not expected).
    public init(_ item: AttemptOutcome) throws {
        let transaction = item.outcome.transaction
        let schedule = item.schedule
        let now = Date()
        let stamp = transaction.updatedAt
        outcome = item.outcome
        step = item.step
        self.schedule = schedule
        let requires: StepWriteGuard = if let expected = item.outcome.expectedStepStatus {
            .hasStatus(expected)
        } else if let owner = item.leaseOwner {
            .leasedBy(owner)
        } else {
            .unguarded
        }
        // A settled step (approved, failed) has no next attempt; an unsettled one keeps its retry
        // date and is held back.
        let unsettled = item.outcome.stepStatus == .processing
        var webhooks: [PendingWebhookEvent] = []
        if let event = try PendingWebhookEvent.outcome(of: transaction, parties: item.parties, now: now) { webhooks.append(event) }
        if let receipt = item.receipt, let event = try PendingWebhookEvent.smsReceipt(of: transaction, scheduleID: schedule.id, to: receipt, now: now) {
            webhooks.append(event)
        }
        if item.outcome.stepStatus == .needsReview {
            webhooks.append(try PendingWebhookEvent.needsReview(transaction, step: item.step, now: now))
        }
        stepTransition = StepTransition(
            stepID: item.step.id, to: item.outcome.stepStatus,
            effect: .settlesAttempt(
                nextAttemptAt: item.outcome.nextAttemptAt ?? (unsettled ? item.step.nextAttemptAt : nil),
                holdBackUntil: unsettled ? stamp.addingTimeInterval(item.outcome.holdBack) : nil),
            requires: requires, at: stamp, audits: [PendingAuditEvent(item.audit, at: now)], webhooks: webhooks,
            receipts: [item.emailReceipt].compactMap { $0 })
        if item.outcome.stepStatus == .failed, let policy = item.outcome.pastDuePolicy {
            let status: ScheduleStatus = switch policy {
            case .continue: .pastDue
            case .pause: .paused
            case .cancel: .cancelled
            }
            pastDue = ScheduleTransition(
                scheduleID: schedule.id, from: ScheduleStatus.takingPastDuePolicy, to: status,
                cancelledSteps: status == .cancelled ? StepStatus.cancelledWithSchedule : [],
                at: stamp,
                audit: PendingAuditEvent(
                    AuditEntry(
                        merchantID: schedule.merchantID, actor: item.audit.actor, action: "schedule.past_due", objectType: "schedule",
                        objectID: schedule.id, details: ["step": item.step.id, "policy": policy.rawValue, "status": status.rawValue]),
                    at: now),
                event: try PendingWebhookEvent(
                    .schedulePastDue, merchantID: schedule.merchantID,
                    data: ["scheduleId": .string(schedule.id), "stepId": .string(item.step.id), "status": .string(status.rawValue),
                           "declineCode": .optional(transaction.declineCode)],
                    now: now))
        }
        if item.outcome.stepStatus.isSettled, schedule.plan.endType != "never" {
            completion = ScheduleTransition(
                scheduleID: schedule.id, from: ScheduleStatus.completable, to: .completed, requiresNoOpenStep: true, at: stamp,
                audit: PendingAuditEvent(
                    AuditEntry(
                        merchantID: schedule.merchantID, actor: item.audit.actor, action: "schedule.completed", objectType: "schedule",
                        objectID: schedule.id),
                    at: now),
                event: try PendingWebhookEvent(
                    .scheduleCompleted, merchantID: schedule.merchantID, data: ["scheduleId": .string(schedule.id)], now: now))
        }
    }
}
