internal import CSQLite
public import Vault

/// An error reported by SQLite (or by this layer in SQLite's terms), with the result code,
/// SQLite's message and the SQL text.
///
/// The bound arguments are deliberately absent: they may be card numbers, customer
/// details or key material, and errors end up in logs and HTTP 500 diagnostics.
public struct SQLiteError: StorageError, CustomStringConvertible, Sendable {
    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, ...): `extendedCode & 0xff`.
    public let code: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY_SNAPSHOT`, ...).
    public let extendedCode: Int32
    /// SQLite's message (`sqlite3_errmsg`) or this layer's explanation; never contains bound values.
    public let message: String
    /// The SQL text of the failing statement, without its arguments; `nil` when no statement was involved.
    public let sql: String?

    /// Creates an error from an extended (or primary) result code.
    ///
    /// - Parameters:
    ///   - extendedCode: the SQLite result code; the primary code is derived from it.
    ///   - message: what went wrong. Must not contain bound values or card data.
    ///   - sql: the SQL text involved, if any.
    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.code = extendedCode & 0xff
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// True for any `SQLITE_CONSTRAINT` failure (unique, foreign key, not null, check, ...).
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }

    /// True when a `UNIQUE` or `PRIMARY KEY` constraint rejected the change,
    /// for example a duplicate merchant reference.
    public var isUniqueViolation: Bool {
        extendedCode == SQLITE_CONSTRAINT_UNIQUE_CODE || extendedCode == SQLITE_CONSTRAINT_PRIMARYKEY_CODE
    }

    /// True when another connection held a lock for longer than the busy timeout.
    public var isBusy: Bool { code == SQLITE_BUSY }

    /// `SQLite error <extended> (<name>): <message> [in: <sql>]`.
    public var description: String {
        var text = "SQLite error \(extendedCode) (\(Self.name(of: extendedCode))): \(message)"
        if let sql {
            text += " [in: \(sql)]"
        }
        return text
    }
}

extension SQLiteError {
    /// An error for a misuse of this layer (not of SQLite itself), such as a closed database.
    static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(extendedCode: SQLITE_MISUSE, message: message, sql: sql)
    }

    /// A type mismatch while reading a row: names the column and the types, never the value.
    static func mismatch(column: String, expected: String, found: SQLiteValue) -> SQLiteError {
        let message = found == .null && expected != "NULL"
            ? "column '\(column)' is NULL or absent, expected \(expected)"
            : "column '\(column)' holds \(found.storageClassName), expected \(expected)"
        return SQLiteError(extendedCode: SQLITE_MISMATCH, message: message)
    }

    /// The error SQLite reports for `handle`'s last failure, with `extendedCode` as returned by the call.
    static func last(on handle: OpaquePointer, code: Int32, sql: String?) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle)
        // The connection's error state may already be cleared (e.g. by a reset); trust the call's code then.
        let resolved = (extended & 0xff) == (code & 0xff) ? extended : code
        let message = sqlite3_errmsg(handle).map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
        return SQLiteError(extendedCode: resolved, message: message, sql: sql)
    }
}
