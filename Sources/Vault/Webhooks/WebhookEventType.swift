/// The kinds of event the vault tells a merchant about, as named in the event body's `type`.
public enum WebhookEventType: String, Sendable, Codable, CaseIterable {
    /// A charge or sale was approved.
    case transactionApproved = "transaction.approved"
    /// A charge or sale was declined.
    case transactionDeclined = "transaction.declined"
    /// Every step of a schedule is settled.
    case scheduleCompleted = "schedule.completed"
    /// A schedule's step finally failed.
    case schedulePastDue = "schedule.past_due"
    /// A step's charge may have gone through and the gateway cannot prove either way: it waits
    /// for an operator (`needs_review`) and is never sent again automatically.
    case chargeNeedsReview = "charge.needs_review"
    /// A one-off transaction (sale, authorization, follow-up) whose answer was lost may have gone
    /// through and the gateway cannot prove either way: it waits for an operator (`needs_review`).
    case transactionNeedsReview = "transaction.needs_review"
    /// A secure card was registered.
    case secureCardRegistered = "secure_card.registered"
    /// A secure card's details or card data changed.
    case secureCardUpdated = "secure_card.updated"
    /// A secure card was deleted.
    case secureCardDeleted = "secure_card.deleted"
    /// An approved charge's text receipt, for the merchant's SMS provider to send to the receipt phone.
    case receiptSMSRequested = "receipt.sms_requested"
}
