public import Foundation
public import Vault

/// The people an outcome callback names besides the card: the card holder and the merchant, as the
/// vault knows them when it records the outcome (a payment callback carries both).
public struct CallbackParties: Sendable, Equatable {
    /// The card holder's name (the stored card's, or the one read from raw card data) as a sealed
    /// marker (``WebhookFieldSeal``: holder data is never stored in the clear, and the deliverer opens
    /// it when it sends the event); nil when unknown: no name on the card, a verification, or an
    /// outcome settled later by the reconciler or an operator.
    public var holderName: String?
    /// The merchant's name.
    public var merchantName: String?

    /// Creates the parties.
    public init(holderName: String? = nil, merchantName: String? = nil) {
        self.holderName = holderName
        self.merchantName = merchantName
    }
}

/// What recording a transaction's outcome queues in the same commit: built by the domain before
/// the write, stored as given by every storage engine (which decides nothing about it).
public struct OutcomeNotices: Sendable, Equatable {
    /// Webhook events to queue (the outcome callback, a review notice).
    public var webhooks: [PendingWebhookEvent]
    /// E-mail receipts to queue (the payer's receipt of an approved payment, refund or void).
    public var receipts: [PendingReceipt]

    /// Creates notices.
    public init(webhooks: [PendingWebhookEvent] = [], receipts: [PendingReceipt] = []) {
        self.webhooks = webhooks
        self.receipts = receipts
    }

    /// Nothing to queue.
    public static let none = OutcomeNotices()

    /// The notices of a settled outcome: its `transaction.approved` / `transaction.declined` callback
    /// (none for any other status).
    /// - Throws: `EncodingError` (not expected).
    public static func outcome(of transaction: Transaction, parties: CallbackParties, now: Date = Date()) throws -> OutcomeNotices {
        OutcomeNotices(webhooks: [try PendingWebhookEvent.outcome(of: transaction, parties: parties, now: now)].compactMap { $0 })
    }
}
