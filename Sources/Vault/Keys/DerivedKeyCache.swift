import Synchronization

/// Per-merchant subkeys derived (`crypto_kdf`, ``SubkeyDerivation``) from one of the merchant's
/// wrapped keys, for one purpose named by an 8-byte context.
///
/// A derived key exists only in memory and only while its parent key does: it is derived again
/// whenever the keyring hands out another parent instance (after a recheck, an eviction or an
/// off-boarding, when the parent is gone and deriving fails), so no new wrapped key, table or
/// migration is needed for it.
public final class DerivedKeyCache: Sendable {
    private let keyring: Keyring
    private let purpose: KeyPurpose
    private let context: String
    private let subkeyID: UInt64
    private let parentVersion: Int?
    private let cache = Mutex<[String: Entry]>([:])

    private struct Entry {
        var parent: SecureBytes
        var derived: SecureBytes
    }

    /// Subkeys of each merchant's `purpose` key for `context` (exactly 8 bytes, e.g. `"idemmac1"`).
    /// - Parameter parentVersion: the parent key's version to derive from; nil for the newest.
    public init(keyring: Keyring, from purpose: KeyPurpose, context: String, subkeyID: UInt64 = 1, parentVersion: Int? = nil) {
        precondition(context.utf8.count == SubkeyDerivation.contextLength, "a crypto_kdf context is 8 bytes")
        self.keyring = keyring
        self.purpose = purpose
        self.context = context
        self.subkeyID = subkeyID
        self.parentVersion = parentVersion
    }

    /// The merchant's subkey (32 bytes, locked memory).
    /// - Throws: `KeyringError.keyUnavailable` when the parent key is destroyed; crypto errors.
    public func key(merchantID: String) async throws -> SecureBytes {
        let parent: SecureBytes
        do {
            parent = try await keyring.key(merchantID: merchantID, purpose: purpose, version: parentVersion).key
        } catch {
            cache.withLock { _ = $0.removeValue(forKey: merchantID) }
            throw error
        }
        if let hit = cache.withLock({ $0[merchantID] }), hit.parent === parent { return hit.derived }
        let derived = try SubkeyDerivation.derive(from: parent, id: subkeyID, context: context)
        cache.withLock { $0[merchantID] = Entry(parent: parent, derived: derived) }
        return derived
    }
}
