import PostgresNIO

/// Errors of the PostgreSQL engine the stores catch by kind, as they catch `SQLiteError` on SQLite.
///
/// Never carries a bound value: postgres-nio's `PSQLError` is redacted, and only the SQLSTATE and
/// the constraint's name are read from it.
public enum PostgresStoreError: Error, Equatable, CustomStringConvertible {
    /// SQLSTATE 23505: a unique or primary-key constraint refused the row.
    case uniqueViolation(constraint: String?)
    /// SQLSTATE 23503: a foreign key names a row that does not exist.
    case foreignKeyViolation(constraint: String?)
    /// SQLSTATE 23514: a CHECK constraint refused the row.
    case checkViolation(constraint: String?)
    /// 40001 / 40P01: the transaction lost a serialization conflict or a deadlock; retrying may succeed.
    case retryableConflict(sqlState: String)
    /// No server of the URL answered (as wanted).
    case unavailable(String)
    /// The connection was closed (the server went away) before the statement was sent: it did not
    /// run, and the transaction it belonged to did not commit.
    case connectionClosed
    /// The engine was used wrongly (a bug), e.g. a query outside the transaction it belongs to.
    case misuse(String)

    public var description: String {
        switch self {
        case .uniqueViolation(let constraint): "unique constraint violated (\(constraint ?? "?"))"
        case .foreignKeyViolation(let constraint): "foreign key violated (\(constraint ?? "?"))"
        case .checkViolation(let constraint): "check constraint violated (\(constraint ?? "?"))"
        case .retryableConflict(let state): "transaction conflict (SQLSTATE \(state))"
        case .unavailable(let reason): "database unavailable: \(reason)"
        case .connectionClosed: "the database connection is closed"
        case .misuse(let reason): "database misuse: \(reason)"
        }
    }

    /// The typed error for a server error, or nil when it is none of the kinds above.
    static func mapping(_ error: any Error) -> PostgresStoreError? {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return nil }
        let constraint = error.serverInfo?[.constraintName]
        switch state {
        case "23505": return .uniqueViolation(constraint: constraint)
        case "23503": return .foreignKeyViolation(constraint: constraint)
        case "23514": return .checkViolation(constraint: constraint)
        case "40001", "40P01": return .retryableConflict(sqlState: state)
        default: return nil
        }
    }
}

extension Error {
    /// Whether this is a unique-constraint failure of PostgreSQL (the counterpart of `SQLiteError.isUniqueViolation`).
    public var isPostgresUniqueViolation: Bool {
        if case .uniqueViolation = self as? PostgresStoreError { return true }
        return (self as? PSQLError)?.serverInfo?[.sqlState] == "23505"
    }

    /// The violated unique constraint's name, when this is a unique-constraint failure.
    public var postgresUniqueConstraint: String? {
        if case .uniqueViolation(let name) = self as? PostgresStoreError { return name }
        guard let error = self as? PSQLError, error.serverInfo?[.sqlState] == "23505" else { return nil }
        return error.serverInfo?[.constraintName]
    }
}
