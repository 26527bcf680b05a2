import Foundation
import PostgresNIO
public import Scheduler
import VaultPostgres
public import VaultSQLite

/// Plain SQL against a test's store on either engine, for what tests read or set up behind the
/// stores' backs (counting rows, tampering with a column).
///
/// Statements are written once, as `SQLiteQuery` literals whose interpolations bind (`"... WHERE id =
/// \(id)"`); on PostgreSQL the `?` they become are numbered `$1`, `$2`, ... and the values bound the
/// same way. Rows come back as `SQLiteRow`s on both engines
/// (PostgreSQL integers, booleans, reals, byte strings and text mapped to SQLite's storage classes),
/// so a test reads them one way.
public struct TestSQL: Sendable {
    /// The store the statements run against.
    public let storage: any VaultStorage

    public init(_ storage: any VaultStorage) {
        self.storage = storage
    }

    /// The engine of `storage`.
    public var engine: TestEngine { storage is PostgresStore ? .postgres : .sqlite }

    /// The rows of a query.
    public func query(_ sql: SQLiteQuery) async throws -> [SQLiteRow] {
        switch storage {
        case let store as SQLiteStore:
            return try await store.database.read { connection in try connection.query(sql) }
        case let store as PostgresStore:
            let query = try Self.postgresQuery(sql.sql, sql.arguments)
            return try await store.read { connection in
                var rows: [SQLiteRow] = []
                for try await row in try await connection.query(query, logger: PostgresTestDatabase.logger) {
                    rows.append(Self.row(row))
                }
                return rows
            }
        default:
            throw UnknownStore()
        }
    }

    /// The first row of a query, if any.
    public func queryOne(_ sql: SQLiteQuery) async throws -> SQLiteRow? {
        try await query(sql).first
    }

    /// The first column of the first row, as an integer (`SELECT count(*) ...`).
    public func count(_ sql: SQLiteQuery) async throws -> Int {
        guard let row = try await queryOne(sql), let first = row.columnNames.first else { return 0 }
        return try row.optionalInt(first) ?? 0
    }

    /// Runs statements in one write transaction, in order; the number of rows the last one changed.
    @discardableResult
    public func run(_ sql: SQLiteQuery) async throws -> Int {
        try await runAll([sql])
    }

    /// Runs statements in one write transaction, in order; the number of rows the last one changed.
    @discardableResult
    public func runAll(_ statements: [SQLiteQuery]) async throws -> Int {
        switch storage {
        case let store as SQLiteStore:
            return try await store.database.write { connection in
                for statement in statements { try connection.run(statement) }
                return connection.changes
            }
        case let store as PostgresStore:
            // postgres-nio does not give the command tag: a change counts the rows it returns.
            let queries = try statements.map { try Self.postgresQuery(Self.returningRows($0.sql), $0.arguments) }
            return try await store.write { write in
                var changed = 0
                for query in queries { changed = try await write.run(query) }
                return changed
            }
        default:
            throw UnknownStore()
        }
    }

    struct UnknownStore: Error {}

    /// An `INSERT`, `UPDATE` or `DELETE` without `RETURNING`, made to return one row per row changed.
    static func returningRows(_ sql: String) -> String {
        let trimmed = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        let verb = trimmed.prefix(while: \.isLetter).uppercased()
        guard ["INSERT", "UPDATE", "DELETE"].contains(verb), trimmed.range(of: "RETURNING", options: .caseInsensitive) == nil else { return sql }
        return (trimmed.hasSuffix(";") ? String(trimmed.dropLast()) : trimmed) + " RETURNING 1"
    }

    struct UnboundPlaceholders: Error, CustomStringConvertible {
        var sql: String
        var description: String { "the statement's placeholders and values differ in number: \(sql)" }
    }

    /// `sql` with each `?` outside quotes numbered as PostgreSQL wants, and the values bound.
    static func postgresQuery(_ sql: String, _ values: [SQLiteValue]) throws -> PostgresQuery {
        var text = ""
        var index = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                text.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                text.append(character)
            } else if character == "?" {
                index += 1
                text += "$\(index)"
            } else {
                text.append(character)
            }
        }
        guard index == values.count else { throw UnboundPlaceholders(sql: sql) }
        var bindings = PostgresBindings()
        for value in values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let number): bindings.append(number)
            case .real(let number): bindings.append(number)
            case .text(let string): bindings.append(string)
            case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            }
        }
        return PostgresQuery(unsafeSQL: text, binds: bindings)
    }

    /// A PostgreSQL row with its cells mapped to SQLite's storage classes.
    static func row(_ row: PostgresRow) -> SQLiteRow {
        var names: [String] = []
        var values: [SQLiteValue] = []
        for cell in row {
            names.append(cell.columnName)
            values.append(value(cell))
        }
        return SQLiteRow(columnNames: names, values: values)
    }

    static func value(_ cell: PostgresCell) -> SQLiteValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8, .oid:
            return (try? cell.decode(Int64.self)).map(SQLiteValue.integer) ?? .null
        case .bool:
            return (try? cell.decode(Bool.self)).map { .integer($0 ? 1 : 0) } ?? .null
        case .float4, .float8:
            return (try? cell.decode(Double.self)).map(SQLiteValue.real) ?? .null
        case .numeric:
            return (try? cell.decode(String.self)).flatMap(Double.init).map(SQLiteValue.real) ?? .null
        case .bytea:
            return (try? cell.decode(ByteBuffer.self)).map { .blob(Array($0.readableBytesView)) } ?? .null
        default:
            return (try? cell.decode(String.self)).map(SQLiteValue.text) ?? .null
        }
    }
}
