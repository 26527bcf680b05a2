/// One SQLite value in its storage class, as bound to a statement or read from a row.
///
/// Card data travels through these values, so no conformance here prints them:
/// errors built by this layer name column types, never contents.
public enum SQLiteValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer (`INTEGER` storage class).
    case integer(Int64)
    /// An IEEE 754 double (`REAL` storage class).
    case real(Double)
    /// UTF-8 text (`TEXT` storage class).
    case text(String)
    /// Raw bytes (`BLOB` storage class); an empty array stays an empty blob, not `NULL`.
    case blob([UInt8])

    /// The SQLite name of the storage class, used in type-mismatch errors instead of the value.
    var storageClassName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

/// A Swift value that can be bound to a `?` parameter of an SQL statement.
public protocol SQLiteBindable {
    /// The value as SQLite stores it.
    var sqliteValue: SQLiteValue { get }
}

extension SQLiteValue: SQLiteBindable {
    /// The value itself, so already-converted values can be passed as arguments.
    public var sqliteValue: SQLiteValue { self }
}

extension Int: SQLiteBindable {
    /// Bound as `INTEGER`.
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Int64: SQLiteBindable {
    /// Bound as `INTEGER`.
    public var sqliteValue: SQLiteValue { .integer(self) }
}

extension Int32: SQLiteBindable {
    /// Bound as `INTEGER`.
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Double: SQLiteBindable {
    /// Bound as `REAL`.
    public var sqliteValue: SQLiteValue { .real(self) }
}

extension Bool: SQLiteBindable {
    /// Bound as `INTEGER` 1 or 0, SQLite's boolean convention.
    public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
}

extension String: SQLiteBindable {
    /// Bound as `TEXT`.
    public var sqliteValue: SQLiteValue { .text(self) }
}

extension Array: SQLiteBindable where Element == UInt8 {
    /// Bound as `BLOB`, including the empty blob.
    public var sqliteValue: SQLiteValue { .blob(self) }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    /// `nil` is bound as `NULL`, anything else as the wrapped value.
    public var sqliteValue: SQLiteValue {
        switch self {
        case .none: .null
        case .some(let wrapped): wrapped.sqliteValue
        }
    }
}
