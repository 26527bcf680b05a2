public import Foundation
public import Payments
public import Vault

/// What kind of object waits for an operator.
public enum ReviewItemKind: String, Sendable, Equatable, CaseIterable {
    /// A schedule step in review, resolved through its step.
    case step
    /// A one-off transaction in review.
    case transaction
}

/// A step or one-off transaction in review (`needs_review`), with what an operator needs to check it
/// against the gateway's own records.
public struct ReviewQueueItem: Sendable, Equatable {
    /// A step or a one-off transaction.
    public var kind: ReviewItemKind
    /// The step's id (`stp_...`) or the transaction's (`txn_...`): what a resolution names.
    public var id: String
    /// The transaction in doubt: the step's latest attempt, or the one-off transaction itself.
    public var transactionID: String
    /// The step's schedule; nil for a one-off transaction.
    public var scheduleID: String?
    /// When the step fell due; nil for a one-off transaction.
    public var dueAt: Date?
    /// What the transaction does (`sale`, `refund`, ...).
    public var type: TransactionType
    /// The amount in minor units.
    public var amount: Int64
    /// Its currency.
    public var currency: Currency
    /// The card token, when charged by token.
    public var secureCardReference: String?
    /// The masked card number.
    public var maskedNumber: String?
    /// The gateway the transaction went to (adapter name).
    public var gateway: String
    /// Our order reference, kept with the transaction.
    public var orderReference: String
    /// The order reference as sent to the gateway (``GatewayOrderReference``): what to search for
    /// in the gateway's portal.
    public var gatewayOrderReference: String
    /// Why it went to review (e.g. `lookup_unavailable: ...`, `integrity_failed`).
    public var reason: String?
    /// When it went to review (the transaction's last change).
    public var since: Date
    /// The transaction's insertion sequence: the queue's sort key.
    public var sequence: Int64

    /// The item an entry of the store shows.
    public init(_ entry: ReviewQueueEntry) {
        let transaction = entry.transaction
        if let step = entry.step {
            kind = .step
            id = step.id
            scheduleID = step.scheduleID
            dueAt = step.dueAt
        } else {
            kind = .transaction
            id = transaction.id
        }
        transactionID = transaction.id
        type = transaction.type
        amount = transaction.amount
        currency = transaction.currency
        secureCardReference = transaction.secureCardReference
        maskedNumber = transaction.maskedNumber
        gateway = transaction.gateway
        orderReference = transaction.orderReference
        gatewayOrderReference = GatewayOrderReference.sent(transaction.orderReference, gateway: transaction.gateway)
        reason = transaction.errorCode
        since = transaction.updatedAt
        sequence = transaction.sequence
    }
}

/// One item of a bulk resolution: which step or transaction, and the operator's answer.
public struct ReviewItemResolution: Sendable, Equatable {
    /// A step or a one-off transaction.
    public var kind: ReviewItemKind
    /// The step's or the transaction's id.
    public var id: String
    /// The answer, with the same rules as a single resolution.
    public var resolution: ReviewResolution

    /// Creates an item.
    public init(kind: ReviewItemKind, id: String, resolution: ReviewResolution) {
        self.kind = kind
        self.id = id
        self.resolution = resolution
    }
}

/// What became of one item of a bulk resolution, or of a look-up.
public struct ReviewItemResult: Sendable, Equatable {
    /// What happened.
    public enum Outcome: Sendable, Equatable {
        /// The resolution was recorded; the step's or transaction's status after it.
        case applied(status: String)
        /// Nothing was recorded for this item: why (the single resolve route's error code).
        case refused(code: String, message: String)
        /// The gateway's records show the transaction: how it ended there, and its id at the gateway.
        case found(outcome: String, gatewayTransactionID: String?)
        /// The gateway has no record of it over the whole window since it was sent.
        case notFound
        /// The gateway could not be asked, or could not search the whole window: why.
        case unavailable(reason: String)
    }

    /// A step or a one-off transaction.
    public var kind: ReviewItemKind
    /// The step's or the transaction's id.
    public var id: String
    /// What happened.
    public var outcome: Outcome

    /// Creates a result.
    public init(kind: ReviewItemKind, id: String, outcome: Outcome) {
        self.kind = kind
        self.id = id
        self.outcome = outcome
    }
}

/// A step or one-off transaction named by an operator (a look-up).
public struct ReviewItemReference: Sendable, Equatable, Hashable {
    /// A step or a one-off transaction.
    public var kind: ReviewItemKind
    /// The step's or the transaction's id.
    public var id: String

    /// Creates a reference.
    public init(kind: ReviewItemKind, id: String) {
        self.kind = kind
        self.id = id
    }
}
