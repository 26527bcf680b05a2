import Synchronization

/// Wraps and unwraps system keys (the audit chain's key) under the master key: the `Keyring`.
public protocol SystemKeyCustodian: AnyObject, Sendable {
    /// Unwraps a system key stored wrapped under KEK `kekVersion`.
    /// - Throws: `KeyringError.missingMasterKeyVersion`, `CryptoError.authenticationFailed`.
    func unwrapSystemKey(_ wrapped: [UInt8], purpose: String, kekVersion: Int) throws -> SecureBytes
    /// Wraps `key` under the current KEK.
    func wrapSystemKey(_ key: SecureBytes, purpose: String) throws -> (kekVersion: Int, wrapped: [UInt8])
}

/// The audit chain's key for the connections of one database: unwrapped once through the
/// custodian (the keyring opened over the store) and then kept in locked memory.
///
/// Engine-neutral: a storage engine loads and creates the key in its own tables (for SQLite,
/// `AuditKeySlot+SQLite.swift` in VaultSQLite) and keeps it here. The writer keeps its own copy, so
/// appending an event never looks the key up; readers use the copy kept here.
public final class AuditKeySlot: Sendable {
    /// The `system_keys.purpose` of the audit key.
    public static let purpose = "audit"

    private struct State {
        var custodian: (any SystemKeyCustodian)?
        var key: SecureBytes?
        var upgradesUnkeyedChain = false
    }

    private let state = Mutex(State())

    /// An empty slot; `attach` gives it a custodian.
    public init() {}

    /// Makes `custodian` the one that unwraps the key, unless another is attached already (the
    /// first keyring opened over the store; later ones over the same store hold the same keys).
    public func attach(_ custodian: any SystemKeyCustodian) {
        state.withLock { state in
            if state.custodian == nil { state.custodian = custodian }
        }
    }

    /// Lets the engine key a chain whose events were written unkeyed (the operator's `vault audit upgrade`).
    public func allowUpgradingUnkeyedChain() {
        state.withLock { $0.upgradesUnkeyedChain = true }
    }

    /// Whether the operator allowed keying a chain whose events were written unkeyed.
    public var upgradesUnkeyedChain: Bool {
        state.withLock { $0.upgradesUnkeyedChain }
    }

    /// The committed key, unwrapped once (by `load`, which reads the stored key) and then kept; nil
    /// when the database has none yet. For connections that only see committed rows (readers).
    public func cachedKey(loading load: () throws -> SecureBytes?) throws -> SecureBytes? {
        if let key = state.withLock({ $0.key }) { return key }
        guard let key = try load() else { return nil }
        return state.withLock { state in
            if state.key == nil { state.key = key }
            return state.key
        }
    }

    /// Unwraps a stored audit key through the attached custodian.
    /// - Throws: `AuditChainError.noKeyring` when no keyring is attached; the custodian's errors.
    public func unwrap(_ wrapped: [UInt8], kekVersion: Int) throws -> SecureBytes {
        try custodian().unwrapSystemKey(wrapped, purpose: Self.purpose, kekVersion: kekVersion)
    }

    /// A new random audit key and its wrapping under the custodian's current KEK, to be stored by the engine.
    /// - Throws: `AuditChainError.noKeyring` when no keyring is attached; the custodian's errors.
    public func makeKey() throws -> (key: SecureBytes, kekVersion: Int, wrapped: [UInt8]) {
        let key = try SecureBytes.random(count: 32)
        let (kekVersion, wrapped) = try custodian().wrapSystemKey(key, purpose: Self.purpose)
        return (key, kekVersion, wrapped)
    }

    private func custodian() throws -> any SystemKeyCustodian {
        guard let custodian = state.withLock({ $0.custodian }) else {
            throw AuditChainError.noKeyring
        }
        return custodian
    }
}
