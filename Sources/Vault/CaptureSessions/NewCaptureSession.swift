/// What a capture session is created with (``CaptureSessionService/create(_:merchant:actor:now:)``
/// checks it): what registration needs except the card, and the origin allowed to frame the
/// hosted card field.
public struct NewCaptureSession: Sendable {
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

    /// Creates a session's details.
    public init(merchantReference: String, allowedOrigin: String, customer: Customer? = nil, customFields: [CustomField]? = nil, verify: Bool? = nil) {
        self.merchantReference = merchantReference
        self.allowedOrigin = allowedOrigin
        self.customer = customer
        self.customFields = customFields
        self.verify = verify
    }
}
