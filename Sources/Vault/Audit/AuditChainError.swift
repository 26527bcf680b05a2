/// Why the audit chain's key cannot be set up.
public enum AuditChainError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The database holds events but no audit key: written by a build before the keyed chain, or
    /// the key was removed. Only the operator may key such a chain (`vault audit upgrade`).
    case unkeyedEvents(count: Int64)
    /// The unkeyed chain offered for upgrade does not verify, so it is not anchored.
    case unkeyedChainBroken(sequence: Int64, reason: String)
    /// No keyring is attached to the store, so the audit key can be neither unwrapped nor created.
    case noKeyring

    public var description: String {
        switch self {
        case .unkeyedEvents(let count):
            "the audit log holds \(count) events but no audit key: if this database was written by a build before the keyed audit "
                + "chain, run `vault audit upgrade` once; otherwise the key was removed from the database (tampering)"
        case .unkeyedChainBroken(let sequence, let reason):
            "the unkeyed audit chain is broken at event \(sequence) (\(reason)); it is not upgraded"
        case .noKeyring:
            "the audit chain's key is not available: no keyring is open over this store"
        }
    }
}
