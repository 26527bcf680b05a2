public import Vault

/// What domain code asks of an engine's error (as of `SQLiteError`): the charge runner's horizon
/// extension takes a unique violation as another runner having added the same steps first.
extension PostgresStoreError: StorageError {
    /// SQLSTATE 23505.
    public var isUniqueViolation: Bool {
        if case .uniqueViolation = self { return true }
        return false
    }
}

/// No server answering is an outage the client may retry; a COMMIT whose answer was lost is not
/// (its outcome is unknown: the idempotency key settles it, as any 5xx).
extension PostgresFailoverError: StorageError {
    public var isUniqueViolation: Bool { false }

    public var isUnavailable: Bool {
        if case .noServer = self { return true }
        return false
    }
}
