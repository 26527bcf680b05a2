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
