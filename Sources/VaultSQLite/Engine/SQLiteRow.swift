/// One result row, copied out of SQLite so it can outlive the statement and cross threads.
///
/// Typed accessors throw `SQLiteError` (`SQLITE_MISMATCH`) naming the column and the types
/// involved, never the value, which may be card data.
public struct SQLiteRow: Sendable {
    /// The result column names, in order (shared by all rows of one query).
    public let columnNames: [String]
    /// The values, in column order.
    public let values: [SQLiteValue]

    /// Creates a row from parallel arrays of names and values.
    public init(columnNames: [String], values: [SQLiteValue]) {
        precondition(columnNames.count == values.count, "one value per column")
        self.columnNames = columnNames
        self.values = values
    }

    /// The value of `column`, or `.null` when the row has no such column.
    ///
    /// Names match exactly first, then ignoring ASCII case as SQLite does.
    public subscript(_ column: String) -> SQLiteValue {
        guard let index = index(of: column) else { return .null }
        return values[index]
    }

    /// The value at a zero-based column position.
    public subscript(_ position: Int) -> SQLiteValue {
        values[position]
    }

    /// An `INTEGER` column as `Int`.
    public func int(_ column: String) throws -> Int {
        guard let value = try optionalInt(column) else {
            throw SQLiteError.mismatch(column: column, expected: "INTEGER", found: .null)
        }
        return value
    }

    /// An `INTEGER` column as `Int64`.
    public func int64(_ column: String) throws -> Int64 {
        guard let value = try optionalInt64(column) else {
            throw SQLiteError.mismatch(column: column, expected: "INTEGER", found: .null)
        }
        return value
    }

    /// A `REAL` column; an `INTEGER` value is converted, as SQLite itself would.
    public func double(_ column: String) throws -> Double {
        switch self[column] {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        case let other: throw SQLiteError.mismatch(column: column, expected: "REAL", found: other)
        }
    }

    /// A `TEXT` column.
    public func string(_ column: String) throws -> String {
        guard let value = try optionalString(column) else {
            throw SQLiteError.mismatch(column: column, expected: "TEXT", found: .null)
        }
        return value
    }

    /// A `BLOB` column; the empty blob reads as `[]`.
    public func blob(_ column: String) throws -> [UInt8] {
        guard let value = try optionalBlob(column) else {
            throw SQLiteError.mismatch(column: column, expected: "BLOB", found: .null)
        }
        return value
    }

    /// An `INTEGER` column holding SQLite's boolean convention: 0 is false, anything else true.
    public func bool(_ column: String) throws -> Bool {
        try int64(column) != 0
    }

    /// An `INTEGER` column, `nil` for `NULL`.
    public func optionalInt(_ column: String) throws -> Int? {
        guard let value = try optionalInt64(column) else { return nil }
        guard let narrowed = Int(exactly: value) else {
            throw SQLiteError.mismatch(column: column, expected: "INTEGER within Int", found: .integer(value))
        }
        return narrowed
    }

    /// An `INTEGER` column as `Int64`, `nil` for `NULL`.
    public func optionalInt64(_ column: String) throws -> Int64? {
        switch self[column] {
        case .null: return nil
        case .integer(let value): return value
        case let other: throw SQLiteError.mismatch(column: column, expected: "INTEGER", found: other)
        }
    }

    /// A `TEXT` column, `nil` for `NULL`.
    public func optionalString(_ column: String) throws -> String? {
        switch self[column] {
        case .null: return nil
        case .text(let value): return value
        case let other: throw SQLiteError.mismatch(column: column, expected: "TEXT", found: other)
        }
    }

    /// A `BLOB` column, `nil` for `NULL`.
    public func optionalBlob(_ column: String) throws -> [UInt8]? {
        switch self[column] {
        case .null: return nil
        case .blob(let value): return value
        case let other: throw SQLiteError.mismatch(column: column, expected: "BLOB", found: other)
        }
    }

    private func index(of column: String) -> Int? {
        // An index loop, not `firstIndex(of:)`: every column read of every row looks its name up,
        // and the generic search costs several times as much in the unoptimized build.
        var index = 0
        while index < columnNames.count {
            if columnNames[index] == column { return index }
            index += 1
        }
        let folded = column.lowercased()
        return columnNames.firstIndex { $0.lowercased() == folded }
    }
}
