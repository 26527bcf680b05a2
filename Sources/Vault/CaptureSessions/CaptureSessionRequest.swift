/// `POST /v1/capture-sessions`: what registration needs except the card, and the origin allowed
/// to frame the hosted card field.
public struct CaptureSessionRequest: Sendable, Decodable {
    /// The merchantReference the card will be registered under.
    public var merchantReference: String
    /// The web page's origin (`https://shop.example`).
    public var allowedOrigin: String
    /// Customer details.
    public var customer: Customer?
    /// Merchant-defined fields.
    public var customFields: [CustomField]?
    /// Verify with the gateway; nil takes the merchant's default.
    public var verify: Bool?

    /// Creates a request.
    public init(merchantReference: String, allowedOrigin: String, customer: Customer? = nil, customFields: [CustomField]? = nil, verify: Bool? = nil) {
        self.merchantReference = merchantReference
        self.allowedOrigin = allowedOrigin
        self.customer = customer
        self.customFields = customFields
        self.verify = verify
    }

    private enum CodingKeys: String, CodingKey { case merchantReference, allowedOrigin, customer, customFields, verify }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        merchantReference = try container.decode(String.self, forKey: .merchantReference)
        allowedOrigin = try container.decode(String.self, forKey: .allowedOrigin)
        try container.refuseNullOrBlankMembers(forKey: .customer)
        customer = try container.decodeUnlessAbsent(Customer.self, forKey: .customer)
        customFields = try container.decodeUnlessAbsent([CustomField].self, forKey: .customFields)
        verify = try container.decodeUnlessAbsent(Bool.self, forKey: .verify)
    }
}

/// `POST /v1/capture-sessions/{id}/card`: the card, in the shape of a registration's (`method`,
/// `card`, `track`, `emv`), and nothing else.
public struct CaptureCardSubmission: Sendable, Decodable {
    /// The card data.
    public var source: CardSource

    /// Creates a submission.
    public init(source: CardSource) {
        self.source = source
    }

    private enum CodingKeys: String, CodingKey { case method, card, track, emv }

    public init(from decoder: any Decoder) throws {
        source = try CardSource(from: try decoder.container(keyedBy: CodingKeys.self))
    }
}
