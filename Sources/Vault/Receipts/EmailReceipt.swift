public import Foundation

/// What a receipt tells the payer happened.
public enum ReceiptEvent: String, Sendable, Codable, CaseIterable {
    /// An approved sale or capture: the payer paid.
    case paid
    /// An approved refund.
    case refunded
    /// An approved void.
    case voided
}

/// Where an e-mail receipt is in its delivery.
public enum ReceiptStatus: String, Sendable, Codable, CaseIterable {
    /// Waiting for its first or next attempt.
    case pending
    /// The mail program took it (exit status 0); never sent again.
    case sent
    /// Refused on every attempt allowed; no more attempts.
    case failed

    /// Receipts no longer waiting for an attempt, which the retention period purges.
    public static let settled: [ReceiptStatus] = [.sent, .failed]
}

/// An e-mail receipt ready for the outbox, built by the domain before the outcome's write so that
/// queuing it in that write is one insert, on every storage engine.
///
/// The recipient is a sealed marker (``WebhookFieldSeal``, bound to the transaction id), opened
/// only when the message is piped to the mail program; the rest is what the message says and
/// holds no personal data beyond what a transaction row holds (the masked card).
public struct PendingReceipt: Sendable, Equatable {
    /// `rcp_...`, time-ordered.
    public var id: String
    /// Whose receipt it is (the sender's display name is the merchant's name).
    public var merchantID: String
    /// The transaction it is the receipt of; one receipt per transaction.
    public var transactionID: String
    /// What happened.
    public var event: ReceiptEvent
    /// The recipient's address, sealed.
    public var recipient: String
    /// The recipient as lists show it (`a***@example.org`).
    public var maskedRecipient: String
    /// The merchant's name as the message shows it.
    public var merchantName: String
    /// The merchant's IANA zone, in which the message is dated.
    public var timeZone: String
    /// When the outcome happened, as stored (the message's `Date`).
    public var occurredAt: String
    /// The message's text, already written.
    public var body: String
    /// When it was queued (also its first attempt's time), as stored.
    public var createdAt: String
    /// The keyed MAC of what the message says and to whom (``ReceiptBinding``), set by the domain
    /// before the write and checked by the deliverer before sending.
    public var binding: [UInt8]?

    /// Fixes a receipt's id and times.
    public init(
        merchantID: String, transactionID: String, event: ReceiptEvent, recipient: String, maskedRecipient: String, merchantName: String,
        timeZone: String, occurredAt: Date, body: String, now: Date = Date()
    ) {
        id = OpaqueToken.makeTimeOrdered(prefix: "rcp_", bits: 128, at: now)
        self.merchantID = merchantID
        self.transactionID = transactionID
        self.event = event
        self.recipient = recipient
        self.maskedRecipient = maskedRecipient
        self.merchantName = merchantName
        self.timeZone = timeZone
        self.occurredAt = Timestamp.string(occurredAt)
        self.body = body
        createdAt = Timestamp.string(now)
    }
}

/// One queued e-mail receipt (a row of the receipt outbox) with its delivery state.
///
/// `description` names ids, status and attempts only: never the recipient, sealed or not.
public struct EmailReceipt: Sendable, Equatable, CustomStringConvertible {
    /// Position in the outbox.
    public var sequence: Int64
    /// `rcp_...`.
    public var id: String
    /// Whose receipt it is.
    public var merchantID: String
    /// The transaction it is the receipt of.
    public var transactionID: String
    /// What happened.
    public var event: ReceiptEvent
    /// The recipient's address, sealed (``WebhookFieldSeal``).
    public var recipient: String
    /// The recipient as lists show it.
    public var maskedRecipient: String
    /// The merchant's name as the message shows it.
    public var merchantName: String
    /// The merchant's IANA zone.
    public var timeZone: String
    /// When the outcome happened.
    public var occurredAt: Date
    /// The message's text.
    public var body: String
    /// Delivery state.
    public var status: ReceiptStatus
    /// Attempts that the mail program refused so far.
    public var attempts: Int
    /// Not attempted before this instant.
    public var nextAttemptAt: Date
    /// While set and in the future, one deliverer holds the receipt and no other may send it.
    public var leaseUntil: Date?
    /// Why the last attempt failed (`... exited with status 75`); never an address or the message.
    public var lastError: String?
    /// When it was queued.
    public var createdAt: Date
    /// When the mail program took it.
    public var sentAt: Date?
    /// The keyed MAC written with it (``ReceiptBinding``); nil for a row of an earlier build.
    public var binding: [UInt8]?

    /// Creates a receipt value.
    public init(
        sequence: Int64, id: String, merchantID: String, transactionID: String, event: ReceiptEvent, recipient: String, maskedRecipient: String,
        merchantName: String, timeZone: String, occurredAt: Date, body: String, status: ReceiptStatus, attempts: Int, nextAttemptAt: Date,
        leaseUntil: Date?, lastError: String?, createdAt: Date, sentAt: Date?, binding: [UInt8]? = nil
    ) {
        self.binding = binding
        self.sequence = sequence
        self.id = id
        self.merchantID = merchantID
        self.transactionID = transactionID
        self.event = event
        self.recipient = recipient
        self.maskedRecipient = maskedRecipient
        self.merchantName = merchantName
        self.timeZone = timeZone
        self.occurredAt = occurredAt
        self.body = body
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.leaseUntil = leaseUntil
        self.lastError = lastError
        self.createdAt = createdAt
        self.sentAt = sentAt
    }

    /// Id, transaction, status and attempts; never the recipient.
    public var description: String {
        "EmailReceipt(\(id), transaction \(transactionID), \(status.rawValue), attempts \(attempts))"
    }
}
