public import Foundation
public import Payments
public import Vault

extension PendingWebhookEvent {
    /// `charge.needs_review`: the step, its schedule and the attempt in review, and why.
    public static func needsReview(_ transaction: Transaction, step: ScheduleStep, now: Date) throws -> PendingWebhookEvent {
        try PendingWebhookEvent(
            .chargeNeedsReview, merchantID: transaction.merchantID,
            data: ["scheduleId": .optional(transaction.scheduleID), "stepId": .string(step.id), "transactionId": .string(transaction.id),
                   "attempt": .optional(transaction.attempt.map(Int64.init)), "amount": .int(transaction.amount),
                   "currency": .string(transaction.currency.code), "reason": .optional(transaction.errorCode)],
            now: now)
    }
}
