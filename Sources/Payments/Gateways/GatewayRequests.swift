public import Vault

/// A request that charges or checks a card: `sale`, `authorize`, `verify`.
///
/// Not `CustomStringConvertible` (its ``description`` is the order description); printing it uses
/// ``debugDescription`` and a mirror that show the masked card only.
public struct ChargeRequest: Sendable, CustomDebugStringConvertible, CustomReflectable {
    /// Our key for this attempt: the same key always means the same attempt, so a repeated
    /// call must not charge twice.
    public var idempotencyKey: String
    /// The order/invoice number the gateway stores with the charge, unique per logical charge;
    /// in-doubt attempts are looked up by it. At most 20 characters for Authorize.Net
    /// (`invoiceNumber`).
    public var reference: String
    /// The amount; for `verify` it may be zero.
    public var amount: Money
    /// The card.
    public var card: PaymentCard
    /// A short description the gateway stores with the order.
    public var description: String?
    /// How the charge uses a stored card (card-on-file flags); `nil` for a card that is not stored.
    public var storedCredential: StoredCredentialUse?

    /// Creates a charge request.
    public init(idempotencyKey: String, reference: String, amount: Money, card: PaymentCard,
                description: String? = nil, storedCredential: StoredCredentialUse? = nil) {
        self.idempotencyKey = idempotencyKey
        self.reference = reference
        self.amount = amount
        self.card = card
        self.description = description
        self.storedCredential = storedCredential
    }

    /// The reference, amount and masked card; never the digits or the CVV.
    public var debugDescription: String {
        "ChargeRequest(reference: \(reference), amount: \(amount), card: \(card))"
    }

    /// A mirror without card digits, so `dump` cannot leak them.
    public var customMirror: Mirror {
        Mirror(self, children: ["idempotencyKey": idempotencyKey, "reference": reference,
                                "amount": amount.formatted(), "card": card.description], displayStyle: .struct)
    }
}

/// A request that acts on an earlier transaction: `capture`, `void`, `refund`.
public struct FollowUpRequest: Sendable, CustomStringConvertible, CustomReflectable {
    /// Our key for this attempt (see ``ChargeRequest/idempotencyKey``).
    public var idempotencyKey: String
    /// The order/invoice number for this follow-up (refunds are looked up by it).
    public var reference: String
    /// The gateway's id of the transaction acted on.
    public var gatewayTransactionID: String
    /// The amount to capture, refund or (where the adapter says ``GatewayAdapter/supportsPartialVoid``) void;
    /// `nil` means the whole remaining amount.
    public var amount: Money?
    /// The original card, when known (Authorize.Net refunds need its last four digits).
    public var card: PaymentCard?
    /// The original card's last four digits, when the full card is not at hand (e.g. from the
    /// stored masked number).
    public var cardLast4: String?

    /// Creates a follow-up request.
    public init(idempotencyKey: String, reference: String, gatewayTransactionID: String,
                amount: Money? = nil, card: PaymentCard? = nil, cardLast4: String? = nil) {
        self.idempotencyKey = idempotencyKey
        self.reference = reference
        self.gatewayTransactionID = gatewayTransactionID
        self.amount = amount
        self.card = card
        self.cardLast4 = cardLast4
    }

    /// The last four digits of the original card, from ``card`` or ``cardLast4``.
    var lastFourDigits: String? {
        if let card { return card.pan.last4 }
        guard let digits = cardLast4?.suffix(4), digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        return String(digits)
    }

    /// The reference, transaction id and amount; never card data.
    public var description: String {
        "FollowUpRequest(reference: \(reference), gatewayTransactionID: \(gatewayTransactionID), amount: "
            + (amount.map { $0.formatted() } ?? "full") + ")"
    }

    /// A mirror without card digits, so `dump` cannot leak them.
    public var customMirror: Mirror {
        Mirror(self, children: ["idempotencyKey": idempotencyKey, "reference": reference,
                                "gatewayTransactionID": gatewayTransactionID,
                                "amount": amount?.formatted() ?? "full",
                                "card": card?.description ?? "none", "cardLast4": lastFourDigits ?? "none"],
               displayStyle: .struct)
    }
}
