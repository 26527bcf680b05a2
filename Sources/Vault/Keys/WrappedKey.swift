public import Foundation

/// What a per-merchant key is for.
public enum KeyPurpose: String, Sendable, Codable, CaseIterable {
    /// Seals card records and gateway credentials (XChaCha20-Poly1305).
    case data
    /// Keys the BLAKE2b card fingerprint.
    case fingerprint
    /// Signs webhook deliveries (HMAC-SHA256).
    case webhook
}

/// A per-merchant key sealed under one version of the master key (KEK).
public struct WrappedKey: Sendable, Equatable {
    /// The owning merchant.
    public var merchantID: String
    /// What the key is for.
    public var purpose: KeyPurpose
    /// The key's own version (data keys rotate; records say which version sealed them).
    public var version: Int
    /// The KEK version that wraps it.
    public var kekVersion: Int
    /// Nonce, ciphertext and tag; nil once the key was destroyed (off-boarding, crypto-shredding).
    public var wrapped: [UInt8]?
    /// When it was made.
    public var createdAt: Date

    /// Creates a value.
    public init(merchantID: String, purpose: KeyPurpose, version: Int, kekVersion: Int, wrapped: [UInt8]?, createdAt: Date) {
        self.merchantID = merchantID
        self.purpose = purpose
        self.version = version
        self.kekVersion = kekVersion
        self.wrapped = wrapped
        self.createdAt = createdAt
    }
}

/// A KEK version known to the database, with a check value that only that key opens.
public struct KEKVersionRecord: Sendable, Equatable {
    /// The version number.
    public var version: Int
    /// A constant sealed under the KEK; opening it proves the key is the right one.
    public var checkValue: [UInt8]
    /// When it was first used.
    public var createdAt: Date
    /// When rotation finished moving every key off it.
    public var retiredAt: Date?

    /// Creates a value.
    public init(version: Int, checkValue: [UInt8], createdAt: Date, retiredAt: Date? = nil) {
        self.version = version
        self.checkValue = checkValue
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}

/// Persistence of KEK versions and wrapped per-merchant keys.
public protocol KeyStore: Sendable {
    /// Every KEK version the database knows, oldest first.
    func kekVersions() async throws -> [KEKVersionRecord]
    /// Records a KEK version (no-op if it is already there).
    func registerKEKVersion(_ record: KEKVersionRecord) async throws
    /// Marks every version below `version` retired.
    func retireKEKVersions(below version: Int, at: Date, audit: AuditEntry) async throws
    /// The newest (or the given) version of a merchant's key.
    func wrappedKey(merchantID: String, purpose: KeyPurpose, version: Int?) async throws -> WrappedKey?
    /// Up to `limit` live keys wrapped under a KEK older than `kekVersion`.
    func wrappedKeys(kekVersionBelow kekVersion: Int, limit: Int) async throws -> [WrappedKey]
    /// Replaces the wrapping of keys (same merchant, purpose, version), each only if it still has
    /// the KEK version it was read with; returns how many rows changed.
    func rewrap(_ keys: [(old: WrappedKey, new: WrappedKey)]) async throws -> Int
    /// Adds new key versions (rotation of data keys).
    func storeWrappedKeys(_ keys: [WrappedKey], audit: AuditEntry) async throws
    /// Destroys every key of a merchant irreversibly and marks it off-boarded.
    func destroyMerchantKeys(merchantID: String, at: Date, audit: AuditEntry) async throws
    /// How many live merchant keys each KEK version wraps.
    func wrappedKeyCounts() async throws -> [Int: Int]
    /// Destroys every data-key version of the merchant below `below` that no stored record uses,
    /// recording a `keys.data_key_destroyed` event for each; returns the destroyed versions.
    func destroyUnusedDataKeys(merchantID: String, below: Int, at: Date, actor: String) async throws -> [Int]
    /// Makes `custodian` (the keyring) the one that unwraps the store's system keys.
    func attachSystemKeyCustodian(_ custodian: any SystemKeyCustodian)
    /// Refuses audit events without an audit key unless `upgradingUnkeyedChain` (a start on such a database is refused; `vault audit upgrade` allows it).
    func checkAuditKey(upgradingUnkeyedChain: Bool) async throws
    /// Creates the audit chain's key if there is none, recording `audit.key_created` (whose MAC anchors
    /// an unkeyed chain's last link).
    func ensureAuditKey() async throws
    /// Rewraps every system key under a KEK older than `kekVersion` with the custodian's current KEK.
    /// - Returns: how many were rewrapped.
    func rewrapSystemKeys(kekVersionBelow kekVersion: Int, with custodian: any SystemKeyCustodian) async throws -> Int
}
