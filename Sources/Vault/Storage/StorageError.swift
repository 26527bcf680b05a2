/// What domain code may ask of a storage engine's error without knowing the engine (SQLite's
/// `SQLiteError`, PostgreSQL's), for the few places that recover from a constraint or answer an
/// outage.
public protocol StorageError: Error {
    /// A UNIQUE or PRIMARY KEY constraint refused the write (another writer got there first).
    var isUniqueViolation: Bool { get }
    /// The database cannot be reached at all (no server answers): nothing was done, and the same
    /// request may succeed once it is back. The API answers 503 `database_unavailable` with
    /// `Retry-After` instead of a 500.
    var isUnavailable: Bool { get }
}

extension StorageError {
    /// An engine whose errors never mean "unreachable" (SQLite: the file is local).
    public var isUnavailable: Bool { false }
}
