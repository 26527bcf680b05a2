/// What authenticating a request reads about its API key, in one read: the key's row, its
/// merchant (nil once the merchant is gone), and the merchant's custom-field definitions.
public struct APIKeyCredential: Sendable {
    /// The key's row as stored.
    public var key: StoredAPIKey
    /// The key's merchant, nil when there is none.
    public var merchant: Merchant?
    /// The merchant's custom-field definitions as stored (no text when it has none).
    public var customFields: StoredCustomFieldDefinitions

    /// A credential of `key`, its `merchant` and the merchant's `customFields`.
    public init(key: StoredAPIKey, merchant: Merchant?, customFields: StoredCustomFieldDefinitions) {
        self.key = key
        self.merchant = merchant
        self.customFields = customFields
    }
}
