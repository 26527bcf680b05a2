import Foundation
import StorageTestSupport
import VaultSQLite

/// A database's schema as stored after all migrations, read from the engine's own catalogue, in
/// terms both engines share: tables, columns (declared type, NOT NULL), unique keys and indexes by
/// the columns they cover.
struct StoredSchema: Equatable {
    struct Column: Equatable {
        var type: String
        var notNull: Bool
    }

    /// An index or unique constraint: its columns in order (`<expr>` for an expression), and
    /// whether it covers only some rows (a `WHERE`).
    struct Index: Hashable, Comparable, CustomStringConvertible {
        var columns: [String]
        var partial: Bool

        var description: String { "(" + columns.joined(separator: ", ") + ")" + (partial ? " WHERE ..." : "") }

        static func < (left: Index, right: Index) -> Bool { left.description < right.description }
    }

    struct Table: Equatable {
        var columns: [String: Column] = [:]
        /// Primary keys, UNIQUE constraints and unique indexes.
        var uniques: Set<Index> = []
        /// Indexes that are not unique.
        var indexes: Set<Index> = []
    }

    var tables: [String: Table] = [:]

    /// The schema of a SQLite database (`sqlite_schema`, `pragma_table_info`, `pragma_index_list`).
    static func sqlite(_ sql: TestSQL) async throws -> StoredSchema {
        var schema = StoredSchema()
        let names = try await sql.query("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        for name in try names.map({ try $0.string("name") }) {
            var table = Table()
            for row in try await sql.query("SELECT name, type, \"notnull\" AS not_null, pk FROM pragma_table_info(\(name))") {
                let type = try row.string("type").uppercased()
                // An INTEGER PRIMARY KEY is the rowid: never NULL, whatever it declares.
                let rowid = try row.int("pk") == 1 && type == "INTEGER"
                table.columns[try row.string("name")] = Column(type: type, notNull: try row.int("not_null") == 1 || rowid)
            }
            let primaryKey = try await sql.query("SELECT name FROM pragma_table_info(\(name)) WHERE pk > 0 ORDER BY pk").map { try $0.string("name") }
            if !primaryKey.isEmpty { table.uniques.insert(Index(columns: primaryKey, partial: false)) }
            for index in try await sql.query("SELECT name, \"unique\" AS is_unique, partial FROM pragma_index_list(\(name))") {
                let indexName = try index.string("name")
                let columns = try await sql.query("SELECT name FROM pragma_index_info(\(indexName)) ORDER BY seqno").map {
                    try $0.optionalString("name") ?? "<expr>"
                }
                let entry = Index(columns: columns, partial: try index.int("partial") == 1)
                if try index.int("is_unique") == 1 { table.uniques.insert(entry) } else { table.indexes.insert(entry) }
            }
            schema.tables[name] = table
        }
        return schema
    }

    /// The schema of a PostgreSQL database's current schema (`information_schema.columns`,
    /// `pg_index`: primary keys and unique constraints are unique indexes there).
    static func postgres(_ sql: TestSQL) async throws -> StoredSchema {
        var schema = StoredSchema()
        let columns = try await sql.query(
            """
            SELECT c.table_name, c.column_name, c.data_type, c.is_nullable FROM information_schema.columns c
            JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
            WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
            """)
        for row in columns {
            schema.tables[try row.string("table_name"), default: Table()].columns[try row.string("column_name")] = Column(
                type: try row.string("data_type"), notNull: try row.string("is_nullable") == "NO")
        }
        let indexes = try await sql.query(
            """
            SELECT t.relname AS table_name, ix.indisunique AS is_unique, ix.indpred IS NOT NULL AS partial,
                array_to_string(array(
                    SELECT coalesce(a.attname::text, '<expr>') FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                    LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord), ',') AS columns
            FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
            WHERE n.nspname = current_schema() AND t.relkind = 'r'
            """)
        for row in indexes {
            let entry = Index(columns: try row.string("columns").components(separatedBy: ","), partial: try row.int("partial") == 1)
            let name = try row.string("table_name")
            if try row.int("is_unique") == 1 {
                schema.tables[name, default: Table()].uniques.insert(entry)
            } else {
                schema.tables[name, default: Table()].indexes.insert(entry)
            }
        }
        return schema
    }
}
