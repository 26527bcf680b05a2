public import Vault

/// `POST /v1/transactions`: a sale, authorization or verification by token or by raw card data.
public struct TransactionRequest: Sendable, Decodable {
    /// `sale`, `authorize` or `verify`.
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

    /// The card to register when a raw-card sale is approved.
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
        case allowDuplicate
    }

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
    }
}

/// `POST /v1/transactions/{id}/capture` and `/refund`: an optional amount (default: all that remains).
public struct FollowUpAmount: Sendable, Decodable {
    /// Minor units.
    public var amount: Int64?

    private enum CodingKeys: String, CodingKey { case amount }

    /// No amount: the whole remainder.
    public init(amount: Int64? = nil) {
        self.amount = amount
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        amount = try TransactionError.minorUnits(container, .amount)
    }
}

/// Why a transaction request was refused.
public enum TransactionError: Error, Equatable, Sendable {
    /// A field breaks a rule (422).
    case invalid(field: String, code: String, message: String)
    /// No such transaction for this merchant (404).
    case notFound
    /// The original's state does not allow this follow-up, or the request conflicts with what is
    /// recorded (409).
    case notAllowed(code: String, message: String)
    /// The merchant's settings do not allow this (403).
    case notPermitted(code: String, message: String)
    /// The gateway declined (402); the transaction is recorded.
    case declined(Transaction)
    /// The gateway failed or the outcome is unknown (502); the transaction is recorded.
    case gatewayFailed(Transaction)
    /// The merchant's gateway is not usable (missing credentials).
    case gatewayNotConfigured(String)
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
