public import Foundation
public import Payments
public import Vault

/// Where a charge's receipt goes and how it is written: the schedule's receipt phone, the
/// merchant's name and time zone. Built by the runner from the schedule's opened contacts.
public struct ReceiptRequest: Sendable, Equatable {
    /// The schedule's `receiptPhone` as a sealed marker (``WebhookFieldSeal``): opened only when the
    /// event is sent, never stored in the clear.
    public var phone: String
    /// The merchant's name, the receipt's first words.
    public var merchantName: String
    /// The merchant's time zone, in which the receipt is dated.
    public var timeZone: TimeZone

    /// Creates a request.
    public init(phone: String, merchantName: String, timeZone: TimeZone) {
        self.phone = phone
        self.merchantName = merchantName
        self.timeZone = timeZone
    }
}

extension PendingWebhookEvent {
    /// `receipt.sms_requested`: the text receipt of an approved charge for the merchant's SMS
    /// provider to send to `request.phone`; nil unless the transaction is approved.
    /// - Throws: `EncodingError` (not expected).
    public static func smsReceipt(of transaction: Transaction, scheduleID: String?, to request: ReceiptRequest, now: Date) throws
        -> PendingWebhookEvent?
    {
        guard transaction.status == .approved else { return nil }
        return try PendingWebhookEvent(
            .receiptSMSRequested, merchantID: transaction.merchantID,
            data: ["transactionId": .string(transaction.id), "scheduleId": .optional(scheduleID), "phone": .string(request.phone),
                   "text": .string(ReceiptText.text(of: transaction, merchantName: request.merchantName, zone: request.timeZone))],
            now: now)
    }
}
