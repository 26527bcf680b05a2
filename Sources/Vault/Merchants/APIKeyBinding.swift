public import Foundation

/// API key rows that cannot be forged, moved or raised by someone who can write to the database
/// but holds no key.
///
/// Two keyed BLAKE2b-256 MACs under a subkey (`crypto_kdf`, context `apikeys1`) of the owning
/// merchant's fingerprint key, which exists only wrapped under the master key:
/// - the **secret**: a MAC of the bearer's SHA-256 (of the hash, so rows of an earlier build, which
///   kept the plain SHA-256, are upgraded in place without the bearer);
/// - the **binding**: a MAC of the row's id, merchant, role, creation, revocation and expiry (the
///   expiry only when the key has one, so rows bound before keys could expire keep their MAC).
///   Label and last use grant nothing and are not bound.
///
/// A key inserted in SQL, moved to another merchant (the MACs are under the other merchant's
/// key), raised to another role or un-revoked fails one of them and authenticates nobody. An
/// off-boarded merchant's keys can never verify again: its fingerprint key is destroyed.
///
/// Cost per authenticated request: a SHA-256 and two MACs over a few dozen bytes with a cached subkey.
public struct APIKeyBinding: Sendable {
    /// The `crypto_kdf` context of the MAC key.
    public static let context = "apikeys1"

    private let macKeys: DerivedKeyCache

    /// Binds with subkeys of the merchants' fingerprint keys from `keyring`.
    public init(keyring: Keyring) {
        // Fingerprint keys have one version, never rotated.
        macKeys = DerivedKeyCache(keyring: keyring, from: .fingerprint, context: Self.context, parentVersion: 1)
    }

    /// A new key for `merchantID` with `role`, its secret and row already bound.
    /// - Parameter fingerprintKey: the merchant's fingerprint key when it is not stored yet (a new
    ///   merchant's first key); nil to use the stored one.
    public func issue(
        merchantID: String, role: APIKeyRole, now: Date = Date(), label: String? = nil, expiresAt: Date? = nil, fingerprintKey: SecureBytes? = nil
    ) async throws -> IssuedAPIKey {
        let (record, bearer) = APIKeys.newKey(merchantID: merchantID, role: role, now: now, label: label, expiresAt: expiresAt)
        let key =
            if let fingerprintKey {
                try SubkeyDerivation.derive(from: fingerprintKey, id: 1, context: Self.context)
            } else {
                try await macKeys.key(merchantID: merchantID)
            }
        return IssuedAPIKey(
            record: record, bearer: bearer, storedSecret: try Self.secretMAC(Digest.sha256(Array(bearer.utf8)), key: key),
            binding: try Self.rowMAC(record, key: key))
    }

    /// Whether `bearer` is the key `stored` was issued for and `stored`'s row is as issued (or last
    /// revoked) by this vault. False for a legacy row (upgraded before serving) and for a
    /// merchant whose keys are destroyed.
    public func verify(bearer: String, _ stored: StoredAPIKey) async -> Bool {
        guard stored.scheme == .bound, let binding = stored.binding,
            let key = try? await macKeys.key(merchantID: stored.record.merchantID),
            let secret = try? Self.secretMAC(Digest.sha256(Array(bearer.utf8)), key: key),
            let row = try? Self.rowMAC(stored.record, key: key)
        else { return false }
        // Both compared, whichever fails: the time taken does not say which.
        let secretMatches = constantTimeEquals(secret, stored.secret)
        let rowMatches = constantTimeEquals(row, binding)
        return secretMatches && rowMatches
    }

    /// Whether `stored`'s row is bound and unaltered (for listings and `audit verify`; nothing
    /// about the secret).
    public func isIntact(_ stored: StoredAPIKey) async -> Bool {
        guard stored.scheme == .bound, let binding = stored.binding,
            let key = try? await macKeys.key(merchantID: stored.record.merchantID),
            let row = try? Self.rowMAC(stored.record, key: key)
        else { return false }
        return constantTimeEquals(row, binding)
    }

    /// The binding of `record` as it will be stored (after a revocation, say).
    public func binding(of record: APIKeyRecord) async throws -> [UInt8] {
        try Self.rowMAC(record, key: try await macKeys.key(merchantID: record.merchantID))
    }

    /// The bound form of a legacy row: its SHA-256 MAC'ed, its row bound as it stands.
    public func upgraded(_ stored: StoredAPIKey) async throws -> (secret: [UInt8], binding: [UInt8]) {
        let key = try await macKeys.key(merchantID: stored.record.merchantID)
        return (try Self.secretMAC(stored.secret, key: key), try Self.rowMAC(stored.record, key: key))
    }

    static func secretMAC(_ bearerHash: [UInt8], key: SecureBytes) throws -> [UInt8] {
        try KeyedHash.blake2b(Array("api-key-secret\n".utf8) + bearerHash, key: key, length: 32)
    }

    static func rowMAC(_ record: APIKeyRecord, key: SecureBytes) throws -> [UInt8] {
        var fields = [
            "api-key-row", record.id, record.merchantID, record.role.rawValue, Timestamp.string(record.createdAt),
            record.revokedAt.map(Timestamp.string) ?? "-",
        ]
        // Only when set: a key without expiry keeps the MAC it had before keys could expire.
        if let expiresAt = record.expiresAt { fields.append("expires " + Timestamp.string(expiresAt)) }
        return try KeyedHash.blake2b(Array(fields.joined(separator: "\n").utf8), key: key, length: 32)
    }
}
