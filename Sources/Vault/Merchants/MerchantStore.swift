public import Foundation

/// Why a merchant or key operation was refused.
public enum MerchantError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another merchant already has this name.
    case nameTaken(String)
    /// No merchant by that name or id.
    case notFound(String)
    /// The name breaks the naming rule.
    case invalidName(String)
    /// No key with that id for the merchant.
    case apiKeyNotFound(String)
    /// The key was revoked before (at that instant): nothing changed.
    case apiKeyAlreadyRevoked(String, at: Date)

    public var description: String {
        switch self {
        case .nameTaken(let name): "a merchant named '\(name)' already exists"
        case .notFound(let name): "no merchant '\(CardNumberShape.masked(name))'"
        case .invalidName(let name):
            "merchant name \(CardNumberShape.contains(name) ? "" : "'\(name)' ")must be 1-64 characters of letters, digits, '.', '_' or '-', "
                + "and not a card number"
        case .apiKeyNotFound(let id): "no API key '\(id)'"
        case .apiKeyAlreadyRevoked(let id, let at): "API key \(id) was already revoked at \(Timestamp.string(at)); nothing changed"
        }
    }
}

/// Persistence of merchants and their API keys. Every change records its audit event atomically.
public protocol MerchantStore: Sendable {
    /// Stores a new merchant with its wrapped keys and first API key in one transaction, numbered
    /// after every merchant already stored (`merchant.sequence` is not read): the number is taken
    /// in the same transaction, so merchants created at once by several servers never share one.
    /// - Returns: the merchant's sequence number.
    @discardableResult
    func createMerchant(
        _ merchant: Merchant, keys: [WrappedKey], sealedGatewayCredentials: [UInt8]?, apiKey: IssuedAPIKey,
        audit: AuditEntry
    ) async throws -> Int64
    /// Replaces the merchant's settings; credentials only when `sealedGatewayCredentials` is non-nil.
    func updateMerchant(_ merchant: Merchant, sealedGatewayCredentials: [UInt8]?, audit: AuditEntry) async throws
    /// The merchant with this id.
    func merchant(id: String) async throws -> Merchant?
    /// The merchant with this name.
    func merchant(named name: String) async throws -> Merchant?
    /// All merchants by name.
    func merchants() async throws -> [Merchant]
    /// The merchant's sealed gateway credentials, if any.
    func sealedGatewayCredentials(merchantID: String) async throws -> [UInt8]?
    /// Adds a key to an existing merchant.
    func addAPIKey(_ key: IssuedAPIKey, audit: AuditEntry) async throws
    /// Revokes a key, storing `binding` (the binding of the record revoked at `at`); false when no
    /// live key with that id belongs to the merchant.
    func revokeAPIKey(id: String, merchantID: String, at: Date, binding: [UInt8], audit: AuditEntry) async throws -> Bool
    /// The key row, its owning merchant and the merchant's custom-field definitions for an id, read
    /// together (one read: authentication is on every request's path, and a registration then
    /// needs no read of the definitions of its own).
    func apiKeyCredential(id: String) async throws -> APIKeyCredential?

    /// Records that key `id` authenticated a request at `at`, unless its recorded last use is
    /// `notBefore` or later (so several servers write at most about once a minute per key).
    func recordAPIKeyUse(id: String, at: Date, unlessUsedSince notBefore: Date) async throws
    /// The merchant's keys, newest first.
    func apiKeys(merchantID: String) async throws -> [StoredAPIKey]
    /// Up to `limit` rows still holding an unkeyed SHA-256 and no binding (of an earlier build).
    func legacyAPIKeys(limit: Int) async throws -> [StoredAPIKey]
    /// Replaces legacy rows' secrets and bindings by their bound forms, in one write (the
    /// merchant's `api_keys.bound` event is appended once all its rows are: ``LegacyRowBinder``).
    func bindLegacyAPIKeys(_ keys: [(id: String, secret: [UInt8], binding: [UInt8])]) async throws
}
