public import Foundation

/// A stored row read as a row of one table: every value that is not plain text or a number is
/// checked, and one this build cannot read throws `StoredRowError` naming the table, the row's id
/// and the column, instead of standing in for a default.
public struct TableRow<Row: StoredRow> {
    /// The engine's row.
    public let row: Row
    /// The table the row is from, as errors name it.
    public let table: String
    /// The row's id, as errors name it.
    public let id: String

    /// The row of `table`, identified by its `idColumn`.
    public init(_ row: Row, table: String, idColumn: String = "id") throws {
        self.row = row
        self.table = table
        self.id = try row.string(idColumn)
    }

    /// The row of `table` whose identity is not one column (`merchant_keys`): `id` names it.
    public init(_ row: Row, table: String, id: String) {
        self.row = row
        self.table = table
        self.id = id
    }

    /// The error for `column`, echoing `value` (only ever an enum, code, date or timestamp value).
    public func unreadable(_ column: String, value: String?) -> StoredRowError {
        .unreadable(table: table, id: id, column: column, value: value)
    }

    /// A column holding an enum's raw value.
    public func value<Value: RawRepresentable>(_ type: Value.Type, _ column: String) throws -> Value where Value.RawValue == String {
        let text = try row.string(column)
        guard let value = Value(rawValue: text) else { throw unreadable(column, value: text) }
        return value
    }

    /// A nullable column holding an enum's raw value.
    public func optionalValue<Value: RawRepresentable>(_ type: Value.Type, _ column: String) throws -> Value?
    where Value.RawValue == String {
        guard let text = try row.optionalString(column) else { return nil }
        guard let value = Value(rawValue: text) else { throw unreadable(column, value: text) }
        return value
    }

    /// A timestamp column (`Timestamp` text).
    public func instant(_ column: String) throws -> Date {
        let text = try row.string(column)
        guard let date = Timestamp.parse(text) else { throw unreadable(column, value: text) }
        return date
    }

    /// A nullable timestamp column.
    public func optionalInstant(_ column: String) throws -> Date? {
        guard let text = try row.optionalString(column) else { return nil }
        guard let date = Timestamp.parse(text) else { throw unreadable(column, value: text) }
        return date
    }

    /// A calendar date column (`yyyy-MM-dd`).
    public func civilDate(_ column: String) throws -> CivilDate {
        let text = try row.string(column)
        guard let date = CivilDate(iso: text) else { throw unreadable(column, value: text) }
        return date
    }

    /// A nullable calendar date column.
    public func optionalCivilDate(_ column: String) throws -> CivilDate? {
        guard let text = try row.optionalString(column) else { return nil }
        guard let date = CivilDate(iso: text) else { throw unreadable(column, value: text) }
        return date
    }

    /// An ISO 4217 currency code column.
    public func currency(_ column: String) throws -> Currency {
        let text = try row.string(column)
        guard let currency = try? Currency(code: text) else { throw unreadable(column, value: text) }
        return currency
    }
}

extension StoredRow {
    /// This row as a row of `table`, for reading values that must not be guessed.
    public func table(_ table: String, idColumn: String = "id") throws -> TableRow<Self> {
        try TableRow(self, table: table, idColumn: idColumn)
    }
}
