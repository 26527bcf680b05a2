/// Changes to a stored card: given fields replace, absent fields stay, cleared fields are removed.
/// The merchant's reference is not changeable.
public struct SecureCardUpdate: Sendable {
    /// New card data, if any.
    public var source: CardSource
    /// Customer details: each given sub-field replaces, a cleared sub-field clears that field,
    /// `.clear` clears them all.
    public var customer: PatchField<CustomerUpdate>
    /// The whole list replaces, `.clear` clears.
    public var customFields: PatchField<[CustomField]>
    /// Verify new card data with the gateway; nil takes the merchant's default.
    public var verify: Bool?

    /// Creates an update.
    public init(source: CardSource = CardSource(method: nil), customer: PatchField<CustomerUpdate> = .absent,
                customFields: PatchField<[CustomField]> = .absent, verify: Bool? = nil) {
        self.source = source
        self.customer = customer
        self.customFields = customFields
        self.verify = verify
    }
}
