import Foundation
import StorageTestSupport
import VaultSQLite
@testable import VaultAppTestSupport

extension TestSQL {
    /// Every value of every row of every table as the bytes stored: text as UTF-8, blobs and
    /// `bytea` as their raw bytes (not hex, as `everyRowAsText` shows PostgreSQL's), numbers in
    /// decimal; one entry per table, values separated by a zero byte. The leak and brute-force scans
    /// search these where there is no database file to read (PostgreSQL), and on SQLite beside the files.
    func everyTableAsBytes() async throws -> [(table: String, bytes: [UInt8])] {
        let listing: SQLiteQuery = engine == .postgres
            ? "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'"
            : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        var tables: [(String, [UInt8])] = []
        for table in try await query(listing).map({ try $0.string("name") }).sorted() {
            var bytes: [UInt8] = []
            for row in try await query("SELECT * FROM \"\(unescaped: table)\"") {
                for value in row.values {
                    switch value {
                    case .null: break
                    case .integer(let number): bytes += Array(String(number).utf8)
                    case .real(let number): bytes += Array(String(number).utf8)
                    case .text(let text): bytes += Array(text.utf8)
                    case .blob(let blob): bytes += blob
                    }
                    bytes.append(0)
                }
            }
            tables.append((table, bytes))
        }
        return tables
    }
}
