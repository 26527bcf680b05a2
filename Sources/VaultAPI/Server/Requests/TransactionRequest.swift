public import Payments
public import Vault

/// `POST /v1/transactions` as the JSON body carries it: a sale, authorization, verification or
/// credit by token or by raw card data. ``validated(for:)`` turns it into the domain's
/// ``NewTransaction``. Public for the request fuzzer.
public struct TransactionRequest: Sendable, Decodable {
    /// `sale`, `authorize`, `verify` or `credit`.
    public var type: String
    /// Minor units (0 or absent for `verify`).
    public var amount: Int64?
    /// ISO 4217 code.
    public var currency: String?
    /// Charge a stored card by token...
    public var secureCardReference: String?
    /// ...or by the merchant's reference...
    public var merchantReference: String?
    /// ...or raw card data by any capture method.
    public var source: CardSource
    /// Registration by sale: register the raw card when the sale is approved.
    public var secureCard: SaleRegistration?
    /// Merchant's description.
    public var description: String?
    /// Process it even when the same transaction (type, card, amount, currency) was recorded within
    /// the duplicate window (a gateway's `forceOnDuplicate`).
    public var allowDuplicate: Bool?
    /// Where the payer's e-mail receipt of an approved sale goes.
    public var receiptEmail: String?

    /// The card to register when a raw-card sale is approved (`secureCard`).
    public struct SaleRegistration: Sendable, Decodable {
        /// The merchant's key for the new card.
        public var merchantReference: String
        /// Customer details.
        public var customer: Customer?
        /// Merchant-defined fields.
        public var customFields: [CustomField]?
    }

    private enum CodingKeys: String, CodingKey {
        case type, amount, currency, secureCardReference, merchantReference, method, card, track, emv, secureCard, description
        case allowDuplicate, receiptEmail
    }

    /// Decodes the body: each field absent or of its type, amounts in whole minor units.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        amount = try TransactionError.minorUnits(container, .amount)
        currency = try container.decodeUnlessAbsent(String.self, forKey: .currency)
        secureCardReference = try container.decodeUnlessAbsent(String.self, forKey: .secureCardReference)
        merchantReference = try container.decodeUnlessAbsent(String.self, forKey: .merchantReference)
        source = try CardSource(from: container)
        secureCard = try container.decodeUnlessAbsent(SaleRegistration.self, forKey: .secureCard)
        description = try container.decodeUnlessAbsent(String.self, forKey: .description)
        allowDuplicate = try container.decodeUnlessAbsent(Bool.self, forKey: .allowDuplicate)
        receiptEmail = try container.decodeUnlessAbsent(String.self, forKey: .receiptEmail)
    }

    /// The domain's transaction for `merchant`, its rules checked.
    /// - Throws: ``TransactionError`` naming the field.
    public func validated(for merchant: Merchant) throws -> NewTransaction {
        var order = try NewTransaction(
            type: type, amount: amount, currency: currency, secureCardReference: secureCardReference, merchantReference: merchantReference,
            source: source,
            registration: secureCard.map {
                NewTransaction.SaleRegistration(merchantReference: $0.merchantReference, customer: $0.customer, customFields: $0.customFields)
            },
            description: description, allowDuplicate: allowDuplicate ?? false, merchant: merchant)
        order.receiptEmail = receiptEmail
        return order
    }
}

/// `POST /v1/transactions/{id}/capture`, `/void` and `/refund`: an optional amount (default: all
/// that remains) and an optional address for the payer's e-mail receipt.
public struct FollowUpAmount: Sendable, Decodable {
    /// Minor units.
    public var amount: Int64?
    /// Where the payer's e-mail receipt of the approved follow-up goes.
    public var receiptEmail: String?

    private enum CodingKeys: String, CodingKey { case amount, receiptEmail }

    /// No amount: the whole remainder.
    public init(amount: Int64? = nil, receiptEmail: String? = nil) {
        self.amount = amount
        self.receiptEmail = receiptEmail
    }

    /// Decodes the body: each field absent or of its type, amounts in whole minor units.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        amount = try TransactionError.minorUnits(container, .amount)
        receiptEmail = try container.decodeUnlessAbsent(String.self, forKey: .receiptEmail)
    }
}

extension TransactionError {
    /// ``MinorUnits/decode(_:_:)`` with a fraction reported as ``TransactionError/invalid(field:code:message:)``.
    static func minorUnits<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Int64? {
        do {
            return try MinorUnits.decode(container, key)
        } catch let error as MinorUnits.FractionError {
            throw TransactionError.invalid(field: error.field, code: MinorUnits.fractionRule, message: MinorUnits.fractionMessage(error.field))
        }
    }
}
