import Foundation
import Vault

extension AuditKeySlot {
    /// The committed key, unwrapped once and then kept; nil when the database has none yet.
    /// For connections that only see committed rows (readers).
    func cachedKey(on connection: SQLiteConnection) throws -> SecureBytes? {
        try cachedKey { try load(on: connection) }
    }

    /// The stored key as `connection` sees it (possibly uncommitted on the writer), not cached here.
    /// - Throws: `AuditChainError.noKeyring` when no keyring is attached; the custodian's errors.
    func load(on connection: SQLiteConnection) throws -> SecureBytes? {
        guard let row = try connection.queryOne("SELECT kek_version, wrapped_key FROM system_keys WHERE purpose = \(Self.purpose)") else {
            return nil
        }
        return try unwrap(try row.blob("wrapped_key"), kekVersion: try row.int("kek_version"))
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
            guard upgradesUnkeyedChain else { throw AuditChainError.unkeyedEvents(count: events) }
            let walk = try AuditChainWalk(connection: connection, key: nil, keyedFrom: .max)
            if case .broken(let sequence, let reason) = walk.verification {
                throw AuditChainError.unkeyedChainBroken(sequence: sequence, reason: reason)
            }
            let head = try connection.queryOne("SELECT value FROM meta WHERE key = 'audit_head'")?.string("value")
            guard head == String(walk.count) + ":" + Encoding.hex(walk.last) else {
                throw AuditChainError.unkeyedChainBroken(sequence: walk.count + 1, reason: "the chain ends before the recorded head")
            }
        }
        let (key, kekVersion, wrapped) = try makeKey()
        try connection.run(
            """
            INSERT INTO system_keys (purpose, kek_version, wrapped_key, created_at) VALUES (\(Self.purpose), \(kekVersion), \(wrapped),
                \(now))
            """)
        let last = try connection.queryOne("SELECT max(seq) AS last FROM audit_events")?.optionalInt64("last") ?? 0
        if last > 0 {
            try connection.run(
                """
                INSERT INTO meta (key, value) VALUES ('audit_keyed_from',
                    \(AuditChain.keyedFromRecord(key: key, sequence: last + 1))) ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """)
        } else {
            try connection.run("DELETE FROM meta WHERE key = 'audit_keyed_from'")
        }
        return key
    }
}
