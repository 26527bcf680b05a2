public import Vault

/// A sale, authorization, verification or credit as the domain takes it: every rule that needs no
/// gateway call nor stored card already checked, in one place, whichever way the request arrived.
///
/// The rules, in the order a request is answered: the type is one the API starts; a credit only
/// where the merchant allows credits; the currency (the merchant's own for a verification without
/// one) is known and taken by the merchant's gateway; a verification moves no money, anything else
/// 1 to ``MinorUnits/maximum``; no card number in the description; a stored card or raw card data,
/// exactly one; registration by sale only with a raw-card sale.
public struct NewTransaction: Sendable {
    /// Which card pays.
    public enum Card: Sendable {
        /// A stored card, by its token or else by the merchant's reference.
        case stored(secureCardReference: String?, merchantReference: String?)
        /// Raw card data, captured when charged.
        case raw(CardSource)
    }

    /// The card to register when a raw-card sale is approved.
    public struct SaleRegistration: Sendable {
        /// The merchant's key for the new card.
        public var merchantReference: String
        /// Customer details.
        public var customer: Customer?
        /// Merchant-defined fields.
        public var customFields: [CustomField]?

        /// Creates the registration.
        public init(merchantReference: String, customer: Customer? = nil, customFields: [CustomField]? = nil) {
            self.merchantReference = merchantReference
            self.customer = customer
            self.customFields = customFields
        }
    }

    /// `sale`, `authorize`, `verify` or `credit`.
    public let type: TransactionType
    /// Minor units; 0 for a verification.
    public let amount: Int64
    /// The currency charged.
    public let currency: Currency
    /// The card that pays.
    public let card: Card
    /// Registration by sale, for a raw-card sale only.
    public let registration: SaleRegistration?
    /// The merchant's description (never card-number-shaped).
    public let description: String?
    /// Process it even when the same transaction was recorded within the duplicate window.
    public let allowDuplicate: Bool
    /// Where the payer's e-mail receipt goes, when the request asked for one (checked by
    /// ``TransactionReceipts/check(_:field:)`` before anything is recorded).
    public var receiptEmail: String?

    /// Checks the rules above for `merchant`.
    /// - Parameters:
    ///   - type: the requested type's name.
    ///   - amount: minor units (absent: 0, which only a verification takes).
    ///   - currency: ISO 4217 code (absent: the merchant's gateway currency for a verification, else refused).
    ///   - source: raw card data, absent when a stored card pays.
    /// - Throws: ``TransactionError`` naming the field (422), or 403 for a credit the merchant does not allow.
    public init(
        type: String, amount: Int64?, currency: String?, secureCardReference: String? = nil, merchantReference: String? = nil,
        source: CardSource = CardSource(method: nil), registration: SaleRegistration? = nil, description: String? = nil,
        allowDuplicate: Bool = false, merchant: Merchant
    ) throws {
        guard let type = TransactionType(rawValue: type), [.sale, .authorize, .verify, .credit].contains(type) else {
            throw TransactionError.invalid(field: "type", code: "invalid_value", message: "type must be sale, authorize, verify or credit.")
        }
        if type == .credit, !merchant.allowsCredit {
            throw TransactionError.notPermitted(
                code: "credit_not_allowed",
                message: "This merchant's settings do not allow credits (refunds without an earlier sale); refund the sale instead, "
                    + "or ask the operator to run `vault merchant update NAME --allow-credit true`.")
        }
        let currency = try Self.currency(currency ?? (type == .verify ? merchant.gateway.currency.code : nil))
        if let refusal = GatewayPreChecks.forGateway(named: merchant.gateway.name)?.refusal(currency: currency) {
            throw TransactionError.invalid(field: "currency", code: refusal.code, message: refusal.message)
        }
        let amount = amount ?? 0
        if type == .verify {
            guard amount == 0 else { throw TransactionError.invalid(field: "amount", code: "out_of_range", message: "A verification moves no money: amount must be 0.") }
        } else {
            guard amount > 0, amount <= MinorUnits.maximum else {
                throw TransactionError.invalid(field: "amount", code: "out_of_range", message: "amount must be between 1 and \(MinorUnits.maximum) minor units.")
            }
        }
        do {
            try CardNumberShape.refuse(description, field: "description")
        } catch {
            throw TransactionError.invalid(field: error.field, code: error.code, message: error.message)
        }
        let byToken = secureCardReference != nil || merchantReference != nil
        if byToken && source.isPresent {
            throw TransactionError.invalid(field: "secureCardReference", code: "not_allowed", message: "Give a secureCardReference (or merchantReference) or card data, not both.")
        }
        if registration != nil && (byToken || type != .sale) {
            throw TransactionError.invalid(field: "secureCard", code: "not_allowed", message: "Registration by sale needs a sale with raw card data.")
        }
        if !byToken && !source.isPresent {
            throw TransactionError.invalid(field: "secureCardReference", code: "required", message: "Give a secureCardReference, a merchantReference or card data.")
        }
        self.type = type
        self.amount = amount
        self.currency = currency
        self.card = byToken ? .stored(secureCardReference: secureCardReference, merchantReference: merchantReference) : .raw(source)
        self.registration = registration
        self.description = description
        self.allowDuplicate = allowDuplicate
    }

    /// The raw card data, nil when a stored card pays.
    var source: CardSource? {
        if case .raw(let source) = card { return source }
        return nil
    }

    static func currency(_ code: String?) throws -> Currency {
        guard let code else { throw TransactionError.invalid(field: "currency", code: "required", message: "currency is required.") }
        do {
            return try Currency(code: code)
        } catch {
            throw TransactionError.invalid(field: "currency", code: "unknown_currency", message: "currency must be a known ISO 4217 code.")
        }
    }
}
