import Foundation
import VaultSQLite

extension TestSQL {
    /// Every row of every table as text, one row per line, for leak scans on PostgreSQL (where there
    /// is no single database file to read): a card number stored in clear in any column shows here.
    /// On SQLite, scan the database, WAL and backup files themselves instead (`DatabaseFiles`):
    /// this returns the rows alike, but misses freed pages.
    public func everyRowAsText() async throws -> String {
        let tables: [String]
        switch engine {
        case .sqlite:
            tables = try await query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").map { try $0.string("name") }
        case .postgres:
            tables = try await query("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'").map { try $0.string("name") }
        }
        var text = ""
        for table in tables.sorted() {
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let sql: SQLiteQuery = engine == .postgres
                ? "SELECT t::text AS row FROM \(unescaped: quoted) t"
                : "SELECT * FROM \(unescaped: quoted)"
            for row in try await query(sql) {
                text += table + ": " + row.values.map(Self.plainText).joined(separator: " | ") + "\n"
            }
        }
        return text
    }

    /// The value itself (`SQLiteValue`'s own description is redacted, as it may be card data).
    static func plainText(_ value: SQLiteValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .text(let text): text
        case .blob(let bytes): String(decoding: bytes, as: UTF8.self)
        }
    }
}
