/// What domain code may ask of a storage engine's error without knowing the engine (SQLite's
/// `SQLiteError`, PostgreSQL's), for the few places that recover from a constraint.
public protocol StorageError: Error {
    /// A UNIQUE or PRIMARY KEY constraint refused the write (another writer got there first).
    var isUniqueViolation: Bool { get }
}
