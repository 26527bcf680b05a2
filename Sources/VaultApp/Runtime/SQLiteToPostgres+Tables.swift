import Foundation
import Logging
import PostgresNIO
import Vault
import VaultPostgres
import VaultSQLite

/// What `SQLiteToPostgres` copies: every table of the SQLite schema, read from both catalogues (so a
/// table added by a later migration is copied without a change here), in the order the
/// PostgreSQL foreign keys need, each SQLite column bound as the PostgreSQL column's type.
struct TablePlan {
    /// One table to copy.
    struct Table {
        /// A column as both schemas have it.
        struct Column {
            var name: String
            /// The PostgreSQL type (`text`, `bigint`, `bytea`, ...).
            var type: String
        }

        var name: String
        /// The SQLite columns, with their PostgreSQL types.
        var columns: [Column]
        /// Columns only PostgreSQL has that the copy fills from a row: for `audit_events`, the imported
        /// chain and the place in it.
        var derived: [(column: Column, value: Derived)] = []

        /// How a PostgreSQL-only column is filled.
        enum Derived {
            /// The same text in every row.
            case constant(String)
            /// The value of another (integer) column of the row.
            case copyOf(String)

            func value(_ row: SQLiteRow) throws -> String? {
                switch self {
                case .constant(let text): text
                case .copyOf(let column): String(try row.int64(column))
                }
            }
        }
        /// Whether the SQLite table has a rowid to page by (else it is `WITHOUT ROWID`).
        var hasRowID: Bool
        /// The SQLite primary key's columns, in key order (the page order of a `WITHOUT ROWID` table).
        var primaryKey: [String]
        /// PostgreSQL identity columns: inserted as given, their sequences moved past the copied values.
        var identityColumns: [String]

        var firstPage: SQLitePage { hasRowID ? .first : .offset(0) }

        /// The SQLite statement reading the page after `page`.
        func pageQuery(after page: SQLitePage, limit: Int, skippingMeta skipped: [String]) -> SQLiteQuery {
            let list = columns.map { SQLiteToPostgres.quoted($0.name) }.joined(separator: ", ")
            let table = SQLiteToPostgres.quoted(name)
            switch page {
            case .afterRowID(let rowID):
                var sql: SQLiteQuery = "SELECT rowid AS \"vault_copy_rowid\", \(unescaped: list) FROM \(unescaped: table) WHERE rowid > \(rowID)"
                if name == "meta" { sql += " AND key NOT IN (\(list: skipped))" }
                return sql + " ORDER BY rowid LIMIT \(limit)"
            case .offset(let offset):
                let order = primaryKey.map(SQLiteToPostgres.quoted).joined(separator: ", ")
                return "SELECT \(unescaped: list) FROM \(unescaped: table) ORDER BY \(unescaped: order) LIMIT \(limit) OFFSET \(offset)"
            }
        }

        /// The page after one that ended with `last` and held `count` rows.
        func nextPage(after page: SQLitePage, last: SQLiteRow, count: Int) -> SQLitePage {
            switch page {
            case .afterRowID: .afterRowID((try? last.int64("vault_copy_rowid")) ?? Int64.max)
            case .offset(let offset): .offset(offset + count)
            }
        }

        /// One INSERT of `rows` as stored, in their order.
        /// - Throws: ``SQLiteToPostgres/Refused`` for a value PostgreSQL's column cannot hold as stored.
        func insert(_ rows: [SQLiteRow]) throws -> PostgresQuery {
            let all = columns + derived.map(\.column)
            var set = PostgresRowSet(all.map { ($0.name, $0.type) })
            for row in rows {
                var values = try columns.map { column in try Self.text(row[column.name], as: column.type, column: "\(name).\(column.name)") }
                for (_, derivation) in derived { values.append(try derivation.value(row)) }
                set.append(values)
            }
            let names = all.map { SQLiteToPostgres.quoted($0.name) }.joined(separator: ", ")
            let overriding = identityColumns.isEmpty ? "" : " OVERRIDING SYSTEM VALUE"
            var query = PostgresQuery(
                unsafeSQL: "INSERT INTO \(SQLiteToPostgres.quoted(name)) (\(names))\(overriding) SELECT \(names) FROM ")
            set.appendSelect(to: &query)
            query.sql += " AS a ORDER BY a.ord"
            return query
        }

        /// A stored value as `PostgresRowSet` takes it for a column of `type`: integers and reals as
        /// decimal text, bytes as hex, text as it is.
        static func text(_ value: SQLiteValue, as type: String, column: String) throws -> String? {
            switch (value, type) {
            case (.null, _): return nil
            case (.text(let text), "text"): return text
            case (.integer(let number), "bigint"), (.integer(let number), "integer"), (.integer(let number), "smallint"),
                (.integer(let number), "double precision"):
                return String(number)
            case (.real(let number), "double precision"): return "\(number)"
            case (.blob(let bytes), "bytea"): return Encoding.hex(bytes)
            default:
                throw SQLiteToPostgres.Refused("column \(column) holds a value of another type than PostgreSQL's \(type)")
            }
        }
    }

    /// The tables to copy, parents before children (`audit_events` last).
    var order: [Table]
    /// Every table of the destination (for the emptiness check).
    var destinationTables: [String]

    /// Tables only PostgreSQL has: the audit chains' heads (filled from the copied chain) and the
    /// shared request-rate buckets (transient).
    static let postgresOnly: Set<String> = ["audit_chains", "request_limits"]

    /// Tables written again on PostgreSQL instead of copied: SQLite's one audit chain binding names
    /// its chain `all` under a MAC over that name, and the copied events form the chain
    /// ``PostgresAuditChains/importedFromSQLite``, whose binding is written with its head.
    static let rebuiltOnPostgres: Set<String> = ["audit_chain_bindings"]

    /// Reads both catalogues.
    /// - Throws: ``SQLiteToPostgres/Refused`` when a SQLite table or column has no PostgreSQL
    ///   counterpart (the schemas of this build differ: a defect of the build, not of the data).
    static func make(source: SQLiteStore, destination: PostgresStore) async throws -> TablePlan {
        let sqliteTables = try await source.database.read { connection in
            try connection.query(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_migrations' ORDER BY name"
            ).map { row in
                let name = try row.string("name")
                let columns = try connection.query("SELECT name, pk FROM pragma_table_info(\(name)) ORDER BY cid").map {
                    (name: try $0.string("name"), key: try $0.int("pk"))
                }
                let withoutRowID = (try row.string("sql")).uppercased().contains("WITHOUT ROWID")
                return (name: name, columns: columns, hasRowID: !withoutRowID)
            }
        }
        let (postgresColumns, foreignKeys) = try await destination.read { connection in
            let columns = try await connection.rows(
                """
                SELECT table_name::text AS table_name, column_name::text AS column_name, data_type::text AS data_type,
                    is_identity::text AS is_identity
                FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
                """, logger: destination.logger
            ).map {
                (table: try $0.string("table_name"), column: try $0.string("column_name"), type: try $0.string("data_type"),
                 identity: try $0.string("is_identity") == "YES")
            }
            let keys = try await connection.rows(
                """
                SELECT child.relname::text AS child, parent.relname::text AS parent FROM pg_constraint c
                JOIN pg_class child ON child.oid = c.conrelid JOIN pg_class parent ON parent.oid = c.confrelid
                WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
                """, logger: destination.logger
            ).map { (child: try $0.string("child"), parent: try $0.string("parent")) }
            return (columns, keys)
        }
        var byTable: [String: [(column: String, type: String, identity: Bool)]] = [:]
        for entry in postgresColumns { byTable[entry.table, default: []].append((entry.column, entry.type, entry.identity)) }
        var tables: [String: Table] = [:]
        for source in sqliteTables where !Self.rebuiltOnPostgres.contains(source.name) {
            guard let target = byTable[source.name] else { throw SQLiteToPostgres.Refused("SQLite table \(source.name) has no PostgreSQL table") }
            let columns = try source.columns.map { column in
                guard let match = target.first(where: { $0.column == column.name }) else {
                    throw SQLiteToPostgres.Refused("SQLite column \(source.name).\(column.name) has no PostgreSQL column")
                }
                return Table.Column(name: column.name, type: match.type)
            }
            var table = Table(
                name: source.name, columns: columns, hasRowID: source.hasRowID,
                primaryKey: source.columns.filter { $0.key > 0 }.sorted { $0.key < $1.key }.map(\.name),
                identityColumns: target.filter(\.identity).map(\.column))
            if source.name == "audit_events" {
                table.derived = [
                    (Table.Column(name: "chain", type: "text"), .constant(PostgresAuditChains.importedFromSQLite)),
                    (Table.Column(name: "chain_seq", type: "bigint"), .copyOf("seq")),
                ]
            }
            tables[source.name] = table
        }
        let order = try Self.parentsFirst(Array(tables.keys), foreignKeys: foreignKeys.filter { tables[$0.child] != nil && tables[$0.parent] != nil })
        let audit = order.filter { $0 == "audit_events" }
        return TablePlan(
            order: (order.filter { $0 != "audit_events" } + audit).compactMap { tables[$0] },
            destinationTables: byTable.keys.sorted())
    }

    /// `tables` ordered so each comes after the tables its foreign keys name (ties by name; a
    /// table's reference to itself is satisfied by copying in stored order).
    static func parentsFirst(_ tables: [String], foreignKeys: [(child: String, parent: String)]) throws -> [String] {
        var parents: [String: Set<String>] = [:]
        for key in foreignKeys where key.child != key.parent { parents[key.child, default: []].insert(key.parent) }
        var ordered: [String] = []
        var placed: Set<String> = []
        var remaining = tables.sorted()
        while !remaining.isEmpty {
            guard let next = remaining.first(where: { (parents[$0] ?? []).isSubset(of: placed) }) else {
                throw SQLiteToPostgres.Refused("the PostgreSQL foreign keys of \(remaining.joined(separator: ", ")) form a cycle")
            }
            ordered.append(next)
            placed.insert(next)
            remaining.removeAll { $0 == next }
        }
        return ordered
    }
}
