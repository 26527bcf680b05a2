public import Foundation
public import Vault

/// The webhook events a transaction's outcome queues, built the same way by every storage engine.
extension PendingWebhookEvent {
    /// The `transaction.approved` / `transaction.declined` event of a settled transaction; nil for any other status.
    /// It names the card holder and the merchant (`holderName`, `merchantName`) as `parties` gives them.
    /// - Throws: `EncodingError` (not expected).
    public static func outcome(of transaction: Transaction, parties: CallbackParties, now: Date = Date()) throws -> PendingWebhookEvent? {
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
            // What a payment callback carries: card brand, masked number, state, error code and text.
            "cardType": .optional(transaction.cardType), "maskedNumber": .optional(transaction.maskedNumber),
            "holderName": .optional(parties.holderName), "merchantName": .optional(parties.merchantName),
            "state": .int(Int64(codes.state)), "subState": .int(Int64(codes.subState)),
            "errorCode": .optional(transaction.status == .approved ? nil : transaction.declineCode ?? transaction.errorCode),
            "errorMessage": .optional(transaction.status == .approved ? nil : transaction.responseText),
        ]
        if let code = transaction.declineCode {
            data["decline"] = .object(["code": .string(code), "category": .optional(transaction.declineCategory)])
        }
        return try PendingWebhookEvent(type, merchantID: transaction.merchantID, data: data, now: now)
    }
}
