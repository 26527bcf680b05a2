import Foundation
import Payments
import Scheduler
import Vault

// The webhook events of charges, built as the SQLite stores build them (same types, same data), so
// a merchant receives the same bodies from either engine. (They are copies of the SQLite stores'
// static builders, which live with SQLiteStore; once both engines share a domain home for them,
// these go.)
extension PostgresStore {
    /// The `transaction.approved` / `transaction.declined` event of a settled transaction; nil for any other status.
    static func outcomeEvent(_ transaction: Transaction, now: Date = Date()) throws -> PendingWebhookEvent? {
        let type: WebhookEventType
        switch transaction.status {
        case .approved: type = .transactionApproved
        case .declined: type = .transactionDeclined
        default: return nil
        }
        let codes = transaction.stateCodes
        var data: [String: WebhookValue] = [
            "transactionId": .string(transaction.id), "type": .string(transaction.type.rawValue), "status": .string(transaction.status.rawValue),
            "amount": .int(transaction.amount), "currency": .string(transaction.currency.code),
            "secureCardReference": .optional(transaction.secureCardReference), "merchantReference": .optional(transaction.merchantReference),
            "scheduleId": .optional(transaction.scheduleID), "stepId": .optional(transaction.stepID),
            "attempt": .optional(transaction.attempt.map(Int64.init)), "parentId": .optional(transaction.parentID),
            "cardType": .optional(transaction.cardType), "maskedNumber": .optional(transaction.maskedNumber),
            "state": .int(Int64(codes.state)), "subState": .int(Int64(codes.subState)),
            "errorCode": .optional(transaction.status == .approved ? nil : transaction.declineCode ?? transaction.errorCode),
            "errorMessage": .optional(transaction.status == .approved ? nil : transaction.responseText),
        ]
        if let code = transaction.declineCode {
            data["decline"] = .object(["code": .string(code), "category": .optional(transaction.declineCategory)])
        }
        return try PendingWebhookEvent(type, merchantID: transaction.merchantID, data: data, now: now)
    }

    /// `charge.needs_review`: the step, its schedule and the attempt in review, and why.
    static func needsReviewEvent(_ transaction: Transaction, step: ScheduleStep, now: Date) throws -> PendingWebhookEvent {
        try PendingWebhookEvent(
            .chargeNeedsReview, merchantID: transaction.merchantID,
            data: ["scheduleId": .optional(transaction.scheduleID), "stepId": .string(step.id), "transactionId": .string(transaction.id),
                   "attempt": .optional(transaction.attempt.map(Int64.init)), "amount": .int(transaction.amount),
                   "currency": .string(transaction.currency.code), "reason": .optional(transaction.errorCode)],
            now: now)
    }
}

/// An outcome with its audit and webhook events built before the write (as the SQLite store's).
struct PreparedChargeOutcome: Sendable {
    var outcome: StepOutcome
    var step: ScheduleStep
    var schedule: Schedule
    var owner: String?
    var audit: PendingAuditEvent
    var transactionEvent: PendingWebhookEvent?
    /// For a step that goes to review: `charge.needs_review`.
    var reviewEvent: PendingWebhookEvent?
    /// For a failed step whose schedule's policy applies: the new status and its events.
    var pastDue: (status: ScheduleStatus, audit: PendingAuditEvent, event: PendingWebhookEvent)?
    /// For a settled step of a schedule that ends: the events if it completes the schedule.
    var completion: (audit: PendingAuditEvent, event: PendingWebhookEvent)?

    init(_ item: AttemptOutcome) throws {
        let transaction = item.outcome.transaction
        let schedule = item.schedule
        let now = Date()
        outcome = item.outcome
        step = item.step
        owner = item.leaseOwner
        self.schedule = schedule
        audit = PendingAuditEvent(item.audit, at: now)
        transactionEvent = try PostgresStore.outcomeEvent(transaction, now: now)
        if item.outcome.stepStatus == .needsReview {
            reviewEvent = try PostgresStore.needsReviewEvent(transaction, step: item.step, now: now)
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
