public import Foundation
public import Vault

/// What a transaction does.
public enum TransactionType: String, Sendable, Codable, CaseIterable {
    /// Authorize and capture at once.
    case sale
    /// Hold funds.
    case authorize
    /// Take held funds (full or partial).
    case capture
    /// Cancel before settlement.
    case void
    /// Return funds (partial allowed).
    case refund
    /// Check a card without moving money.
    case verify
    /// Return funds to a card without an earlier sale (a gateway `credit`); only for merchants
    /// whose settings allow it.
    case credit
}

/// Where a transaction is: its `status` in the API.
public enum TransactionStatus: String, Sendable, Codable, CaseIterable {
    /// Recorded, gateway not yet answered.
    case pending
    /// The gateway approved it.
    case approved
    /// The gateway (or the vault, for an expired card) declined it.
    case declined
    /// The gateway could not process it; nothing happened.
    case error
    /// Voided afterwards.
    case voided
    /// Refunded in full.
    case refunded
    /// Refunded in part.
    case partiallyRefunded = "partially_refunded"
    /// An authorization that was captured.
    case captured
    /// Sent, outcome unknown: the reconciler looks it up at the gateway; nothing is sent again
    /// without the gateway's proof that it never arrived.
    case inDoubt = "in_doubt"
    /// In doubt, and the gateway cannot prove whether it happened: an operator settles it
    /// (`POST /v1/transactions/{id}/resolve`). Never sent again, never settled automatically.
    case needsReview = "needs_review"
}

/// A gateway transaction as recorded by the vault.
public struct Transaction: Sendable, Equatable {
    /// Public id, `txn_...`; also the gateway idempotency key's root.
    public var id: String
    /// Owner.
    public var merchantID: String
    /// What it does.
    public var type: TransactionType
    /// Where it is.
    public var status: TransactionStatus
    /// Amount in minor units.
    public var amount: Int64
    /// Currency.
    public var currency: Currency
    /// The card token, when charged by token or registered by sale.
    public var secureCardReference: String?
    /// The card's merchantReference.
    public var merchantReference: String?
    /// Brand of the card.
    public var cardType: String?
    /// Masked PAN.
    public var maskedNumber: String?
    /// The schedule it charges, if any.
    public var scheduleID: String?
    /// The step it charges, if any.
    public var stepID: String?
    /// The attempt number for a step.
    public var attempt: Int?
    /// The original transaction of a capture, void or refund.
    public var parentID: String?
    /// Sent with every gateway call for this transaction.
    public var idempotencyKey: String
    /// The gateway order/invoice reference (at most 20 characters).
    public var orderReference: String
    /// Merchant's description.
    public var description: String?
    /// Adapter name.
    public var gateway: String
    /// Gateway's transaction id.
    public var gatewayTransactionID: String?
    /// Authorization code.
    public var authCode: String?
    /// Gateway response code.
    public var responseCode: String?
    /// Gateway response text.
    public var responseText: String?
    /// AVS result.
    public var avsResult: String?
    /// CVV result.
    public var cvvResult: String?
    /// Decline code (`card_declined`, `insufficient_funds`, ...).
    public var declineCode: String?
    /// `hard` or `soft`; `error` for a permanent gateway error (status `error`, settled).
    public var declineCategory: String?

    /// Whether this is a permanent gateway error: status `error`, decline category `error`;
    /// settled, never sent again.
    public var isPermanentError: Bool { status == .error && declineCategory == DeclineCategory.error.rawValue }
    /// Error code when the gateway failed.
    public var errorCode: String?
    /// How the charge used a stored card: `initial` (the credential was stored) or `subsequent`
    /// (a stored one was used); `nil` for a card that is not stored, and for follow-ups.
    public var storedCredential: StoredCredentialKind?
    /// The network's id for this transaction, masked (``NetworkTransactionID/masked(_:)``).
    public var networkTransactionID: String?
    /// For authorizations: captured so far.
    public var capturedAmount: Int64
    /// Refunded so far.
    public var refundedAmount: Int64
    /// Reversed so far by voids (a sale or authorization): the whole amount once voided, part of it
    /// after a partial reversal, which leaves the status as it was (see ``ReversalOptions``).
    public var voidedAmount: Int64
    /// When recorded.
    public var createdAt: Date
    /// Last change.
    public var updatedAt: Date
    /// Insertion order.
    public var sequence: Int64
    /// The keyed MAC duplicate protection compares (``DuplicateTransactionCheck``); written, never read back.
    public var duplicateMAC: [UInt8]?
    /// The keyed MAC of the fields that decide what a follow-up of this transaction moves and where
    /// (``TransactionBinding``); nil for a row of an earlier build not yet bound.
    public var binding: [UInt8]?
    /// Where the payer's e-mail receipts of this transaction and of its follow-ups go, sealed under
    /// the merchant's data key (``TransactionReceiptAddress``); nil when no receipt was asked for.
    /// Never shown: a refund, void or capture without an address of its own inherits it.
    public var sealedReceiptAddress: [UInt8]?

    /// Creates a pending transaction.
    public init(
        id: String, merchantID: String, type: TransactionType, amount: Int64, currency: Currency, gateway: String, now: Date,
        idempotencyKey: String? = nil, orderReference: String? = nil
    ) {
        self.id = id
        self.merchantID = merchantID
        self.type = type
        self.status = .pending
        self.amount = amount
        self.currency = currency
        self.idempotencyKey = idempotencyKey ?? id
        self.orderReference = orderReference ?? Transaction.orderReference(for: id)
        self.gateway = gateway
        self.capturedAmount = 0
        self.refundedAmount = 0
        self.voidedAmount = 0
        self.createdAt = now
        self.updatedAt = now
        self.sequence = 0
    }

    /// A new transaction id, `txn_` and 21 base32 characters: 48 bits of creation time (ms), then 56
    /// random bits, so ids made close in time sit together in the transactions' id index.
    public static func makeID(at now: Date = Date()) -> String {
        OpaqueToken.makeTimeOrdered(prefix: "txn_", bits: 104, at: now)
    }

    /// A gateway order reference derived from an id: at most 20 characters (Authorize.Net's
    /// `invoiceNumber` limit), unique per logical charge.
    public static func orderReference(for id: String) -> String {
        let body = id.split(separator: "_").last.map(String.init) ?? id
        return "v" + String(body.suffix(19))
    }

    /// Applies a gateway answer. The outcome replaces an earlier one entirely: a charge in doubt that
    /// settles as approved or declined loses the error code it had while in doubt.
    public mutating func apply(_ result: GatewayResult, now: Date) {
        (declineCode, declineCategory, errorCode) = (nil, nil, nil)
        switch result.outcome {
        case .approved:
            status = .approved
        case .declined(let code, .error):
            // A permanent gateway error: an error (nothing charged) that is settled.
            status = .error
            errorCode = code
            declineCode = code
            declineCategory = DeclineCategory.error.rawValue
        case .declined(let code, let category):
            status = .declined
            declineCode = code
            declineCategory = category.rawValue
        case .error(let code, _):
            status = .error
            errorCode = code
        case .inDoubt(let reason):
            status = .inDoubt
            errorCode = reason
        }
        gatewayTransactionID = result.transactionID ?? gatewayTransactionID
        authCode = result.authCode
        responseCode = result.responseCode
        responseText = result.responseText
        avsResult = result.avsResult
        cvvResult = result.cvvResult
        if let network = result.networkTransactionID { networkTransactionID = NetworkTransactionID.masked(network) }
        updatedAt = now
    }
}
