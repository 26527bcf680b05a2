import Foundation
public import Vault

extension SQLiteStore: StepReviewStore {
    public func latestAttempt(stepID: String, attempt: Int, merchantID: String) async throws -> Transaction? {
        try await database.read { connection in
            try connection.queryOne(
                "SELECT * FROM transactions WHERE step_id = ? AND attempt = ? AND merchant_id = ?", [stepID, attempt, merchantID]
            ).map(Self.transaction)
        }
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
