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
/// The writer connection keeps its own copy (see `SQLiteConnection.auditChainKey`), so
/// appending an event never looks the key up; readers use the copy kept here.
public final class AuditKeySlot: Sendable {
    /// The `system_keys.purpose` of the audit key.
    static let purpose = "audit"

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

    /// Lets `create` key a chain whose events were written unkeyed (the operator's `vault audit upgrade`).
    public func allowUpgradingUnkeyedChain() {
        state.withLock { $0.upgradesUnkeyedChain = true }
    }

    /// The committed key, unwrapped once and then kept; nil when the database has none yet.
    /// For connections that only see committed rows (readers).
    func cachedKey(on connection: SQLiteConnection) throws -> SecureBytes? {
        if let key = state.withLock({ $0.key }) { return key }
        guard let key = try load(on: connection) else { return nil }
        return state.withLock { state in
            if state.key == nil { state.key = key }
            return state.key
        }
    }

    /// The stored key as `connection` sees it (possibly uncommitted on the writer), not cached here.
    /// - Throws: `SQLiteError.misuse` when no keyring is attached; the custodian's errors.
    func load(on connection: SQLiteConnection) throws -> SecureBytes? {
        guard let row = try connection.queryOne("SELECT kek_version, wrapped_key FROM system_keys WHERE purpose = ?", [Self.purpose]) else {
            return nil
        }
        return try custodian().unwrapSystemKey(try row.blob("wrapped_key"), purpose: Self.purpose, kekVersion: try row.int("kek_version"))
    }

    /// Creates, wraps and inserts a new random key inside the writer's open transaction.
    ///
    /// On an empty chain only, unless the operator allowed upgrading an unkeyed one: events without
    /// a key are otherwise indistinguishable from a chain recomputed after the key row was deleted.
    /// When upgrading, the unkeyed chain must verify; its end is then recorded as the first keyed
    /// sequence in `meta.audit_keyed_from`, with a tag under the new key so it cannot be moved.
    /// - Throws: `AuditChainError`; the custodian's errors; `SQLiteError`.
    func create(on connection: SQLiteConnection, now: String) throws -> SecureBytes {
        let events = try connection.queryOne("SELECT count(*) AS n FROM audit_events")?.int64("n") ?? 0
        if events > 0 {
            guard state.withLock({ $0.upgradesUnkeyedChain }) else { throw AuditChainError.unkeyedEvents(count: events) }
            let walk = try AuditChainWalk(connection: connection, key: nil, keyedFrom: .max)
            if case .broken(let sequence, let reason) = walk.verification {
                throw AuditChainError.unkeyedChainBroken(sequence: sequence, reason: reason)
            }
            let head = try connection.queryOne("SELECT value FROM meta WHERE key = 'audit_head'")?.string("value")
            guard head == String(walk.count) + ":" + Encoding.hex(walk.last) else {
                throw AuditChainError.unkeyedChainBroken(sequence: walk.count + 1, reason: "the chain ends before the recorded head")
            }
        }
        let key = try SecureBytes.random(count: 32)
        let (kekVersion, wrapped) = try custodian().wrapSystemKey(key, purpose: Self.purpose)
        try connection.run(
            "INSERT INTO system_keys (purpose, kek_version, wrapped_key, created_at) VALUES (?, ?, ?, ?)",
            [Self.purpose, kekVersion, wrapped, now])
        let last = try connection.queryOne("SELECT max(seq) AS last FROM audit_events")?.optionalInt64("last") ?? 0
        if last > 0 {
            try connection.run(
                "INSERT INTO meta (key, value) VALUES ('audit_keyed_from', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [try AuditChain.keyedFromRecord(key: key, sequence: last + 1)])
        } else {
            try connection.run("DELETE FROM meta WHERE key = 'audit_keyed_from'")
        }
        return key
    }

    private func custodian() throws -> any SystemKeyCustodian {
        guard let custodian = state.withLock({ $0.custodian }) else {
            throw SQLiteError.misuse("the audit chain's key is not available: no keyring is open over this store")
        }
        return custodian
    }
}
