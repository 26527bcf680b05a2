import Foundation
public import PostgresNIO

/// Many rows bound as one parameter: a JSON array of arrays (`null` for a missing value) read back
/// with `jsonb_array_elements`, each position cast to its column's type. One statement then
/// inserts or updates a whole group (`INSERT ... SELECT FROM`, `UPDATE ... FROM`), whatever its
/// size, with the same statement text every time.
public struct PostgresRowSet: Sendable {
    /// The columns as `(name, type)`: each row's values in this order.
    public let columns: [(name: String, type: String)]
    /// The rows added so far.
    public private(set) var rows: [[String?]] = []

    /// An empty set of rows of `columns` (SQL type names such as `text`, `bigint`, `bytea`; a
    /// `bytea` value is given as hex).
    public init(_ columns: [(name: String, type: String)]) {
        self.columns = columns
    }

    /// Whether no row was added.
    public var isEmpty: Bool { rows.isEmpty }

    /// Adds a row: one value per column, in the columns' order (integers as decimal text, bytes as hex).
    public mutating func append(_ values: [String?]) {
        precondition(values.count == columns.count, "a row of \(values.count) values for \(columns.count) columns")
        rows.append(values)
    }

    /// Appends `(SELECT <columns>, ord FROM jsonb_array_elements($n) ...)` to `query` (to follow
    /// `FROM` with an alias, or `WITH name AS`), binding the rows: `ord` is each row's position
    /// (1, 2, ...), for `ORDER BY`.
    public func appendSelect(to query: inout PostgresQuery) {
        let json = Self.json(rows)
        let values = columns.enumerated().map { index, column in
            column.type == "bytea"
                ? "decode(e->>\(index), 'hex') AS \(column.name)" : "(e->>\(index))::\(column.type) AS \(column.name)"
        }
        query.sql += "(SELECT " + values.joined(separator: ", ") + ", x.ord FROM jsonb_array_elements("
        query.binds.append(json, context: .default)
        query.sql += "$\(query.binds.count)::jsonb) WITH ORDINALITY AS x(e, ord))"
    }

    /// `rows` as a JSON array of arrays of strings and nulls (RFC 8259: `"` and `\` escaped, and
    /// every control character as `\u00XX`; everything else as its UTF-8). Written here rather
    /// than with `JSONEncoder`, which took a sixth of the charge runner's CPU time.
    static func json(_ rows: [[String?]]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(rows.count * 256)
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "["))
        for (rowIndex, row) in rows.enumerated() {
            if rowIndex > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            for (index, value) in row.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                guard let value else {
                    out.append(contentsOf: "null".utf8)
                    continue
                }
                out.append(UInt8(ascii: "\""))
                for byte in value.utf8 {
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                        out.append(UInt8(ascii: "\\"))
                        out.append(byte)
                    case 0..<0x20:
                        out.append(contentsOf: "\\u00".utf8)
                        out.append(hex[Int(byte >> 4)])
                        out.append(hex[Int(byte & 0x0F)])
                    default:
                        out.append(byte)
                    }
                }
                out.append(UInt8(ascii: "\""))
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }
}
