public import Foundation
public import Vault

extension PendingWebhookEvent {
    /// `transaction.needs_review`: a one-off transaction the gateway cannot prove either way, what
    /// it is and why, and the order reference sent to the gateway (what to search for in the
    /// gateway's own portal before resolving it).
    public static func needsReview(_ transaction: Transaction, now: Date) throws -> PendingWebhookEvent {
        try PendingWebhookEvent(
            .transactionNeedsReview, merchantID: transaction.merchantID,
            data: ["transactionId": .string(transaction.id), "type": .string(transaction.type.rawValue),
                   "amount": .int(transaction.amount), "currency": .string(transaction.currency.code),
                   "parentId": .optional(transaction.parentID), "orderReference": .string(transaction.orderReference),
                   "secureCardReference": .optional(transaction.secureCardReference), "reason": .optional(transaction.errorCode)],
            now: now)
    }
}
