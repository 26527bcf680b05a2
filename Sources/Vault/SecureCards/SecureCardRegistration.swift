/// A card to register: the merchant's key for it, the card data by any capture method, and the
/// customer details and custom fields to keep with it. ``SecureCardService`` validates it.
public struct SecureCardRegistration: Sendable {
    /// The merchant's key for the card.
    public var merchantReference: String
    /// The card data.
    public var source: CardSource
    /// Customer details.
    public var customer: Customer?
    /// Merchant-defined fields.
    public var customFields: [CustomField]?
    /// Verify with the gateway; nil takes the merchant's default.
    public var verify: Bool?

    /// Creates a registration.
    public init(merchantReference: String, source: CardSource, customer: Customer? = nil, customFields: [CustomField]? = nil, verify: Bool? = nil) {
        self.merchantReference = merchantReference
        self.source = source
        self.customer = customer
        self.customFields = customFields
        self.verify = verify
    }
}
