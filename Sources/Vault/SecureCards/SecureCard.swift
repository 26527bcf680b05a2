public import Foundation

/// A card token as merchants see it: masked card facts in the clear, personal details opened from
/// their sealed form. The PAN itself never leaves the vault except towards a gateway.
public struct SecureCard: Sendable, Equatable {
    /// Whether the token can still be used.
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Usable.
        case active
        /// Logically deleted; kept for history.
        case deleted
    }

    /// The opaque token, `sc_...`, stable across updates.
    public var reference: String
    /// The merchant that owns it.
    public var merchantID: String
    /// The merchant's own key for the card, unique among its live cards.
    public var merchantReference: String
    /// Usable or deleted.
    public var status: Status
    /// Brand detected from the IIN.
    public var cardType: CardBrand
    /// First six digits.
    public var bin: String
    /// Last four digits.
    public var last4: String
    /// `411111******1111`.
    public var maskedNumber: String
    /// Expiry month and year.
    public var expiry: CardExpiry
    /// How the card was captured.
    public var entryMode: EntryMode
    /// Per-merchant keyed hash of the PAN.
    public var fingerprint: String
    /// Data-key version that sealed the record.
    public var keyVersion: Int
    /// Cardholder name (sealed at rest); nil after a purge or when not given.
    public var holderName: String?
    /// Customer details (sealed at rest).
    public var customer: Customer?
    /// Merchant-defined fields (sealed at rest).
    public var customFields: [CustomField]
    /// The outcome of gateway verification, if one ran.
    public var verification: CardVerificationRecord?
    /// When registered.
    public var createdAt: Date
    /// When last changed.
    public var updatedAt: Date
    /// When deleted.
    public var deletedAt: Date?
    /// When the encrypted card data was destroyed.
    public var purgedAt: Date?
    /// Insertion order, for list cursors.
    public var sequence: Int64
}

/// What gateway verification said when the card was registered or its data replaced.
public struct CardVerificationRecord: Sendable, Equatable, Codable {
    /// `verified`.
    public var status: String
    /// Adapter that verified it.
    public var gateway: String
    /// The gateway's transaction id of the verification.
    public var transactionId: String?
    /// AVS result code.
    public var avsResult: String?
    /// CVV result code.
    public var cvvResult: String?
    /// When.
    public var verifiedAt: Date

    /// Creates a record.
    public init(status: String, gateway: String, transactionId: String?, avsResult: String?, cvvResult: String?, verifiedAt: Date) {
        self.status = status
        self.gateway = gateway
        self.transactionId = transactionId
        self.avsResult = avsResult
        self.cvvResult = cvvResult
        self.verifiedAt = verifiedAt
    }
}

/// The card data that is sealed: the PAN and the holder name.
struct SealedCardData: Decodable {
    var pan: String
    var holderName: String?
}

/// The holder name alone, read from sealed card data: showing a card never turns its PAN into a
/// Swift string (the decoder materialises only the fields a type names).
struct SealedCardHolder: Decodable {
    var holderName: String?
}

/// The personal details that are sealed.
///
/// Read with the field names it is written with (`plaintext`), fixed here rather than taken from
/// `Customer` and `CustomField`, which are also the API's types: renaming an API field must not
/// make sealed details unreadable.
struct SealedCardDetails: Decodable, Equatable {
    var customer: Customer?
    var customFields: [CustomField]

    init(customer: Customer?, customFields: [CustomField]) {
        self.customer = customer
        self.customFields = customFields
    }

    private enum Keys: String, CodingKey { case customer, customFields }
    private enum CustomerKeys: String, CodingKey { case email, mobileNumber, city, region, country, ipAddress }
    private enum FieldKeys: String, CodingKey { case name, value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        if container.contains(.customer), try !container.decodeNil(forKey: .customer) {
            let fields = try container.nestedContainer(keyedBy: CustomerKeys.self, forKey: .customer)
            customer = Customer(
                email: try fields.decodeIfPresent(String.self, forKey: .email),
                mobileNumber: try fields.decodeIfPresent(String.self, forKey: .mobileNumber),
                city: try fields.decodeIfPresent(String.self, forKey: .city), region: try fields.decodeIfPresent(String.self, forKey: .region),
                country: try fields.decodeIfPresent(String.self, forKey: .country),
                ipAddress: try fields.decodeIfPresent(String.self, forKey: .ipAddress))
        } else {
            customer = nil
        }
        var list = try container.nestedUnkeyedContainer(forKey: .customFields)
        var customFields: [CustomField] = []
        while !list.isAtEnd {
            let field = try list.nestedContainer(keyedBy: FieldKeys.self)
            customFields.append(CustomField(name: try field.decode(String.self, forKey: .name), value: try field.decode(String.self, forKey: .value)))
        }
        self.customFields = customFields
    }
}
