internal import CSQLite
import Foundation

extension SQLiteConnection {
    /// Widens `CHECK (column = 'a' OR column = 'b' ...)` (as ``rewriteCheckListsAsComparisons(_:)``
    /// leaves it) in `table`'s stored definition to accept `values` too, the way SQLite documents
    /// for CHECK changes (writable schema, schema version incremented, the table read back). Every
    /// row stays valid, since the constraint only accepts more. Runs inside the migration's
    /// transaction.
    /// - Throws: `SQLiteError` when the table or its comparison check on `column` is not found.
    func addCheckValues(table: String, column: String, values: [String]) throws {
        guard let handle else { throw SQLiteError.misuse("the database connection is closed") }
        guard let stored = try queryOne("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [table]) else {
            throw SQLiteError.misuse("no table \(table) to widen")
        }
        let sql = try stored.string("sql")
        let comparison = "\(column) = '[^']*'"
        guard let pattern = try? Regex("CHECK \\((\(comparison)(?: OR \(comparison))*)\\)"),
              let match = sql.firstMatch(of: pattern), let list = match.output[1].substring else {
            throw SQLiteError.misuse("table \(table): no CHECK of comparisons on \(column)")
        }
        let added = values.filter { !list.contains("\(column) = '\($0)'") }.map { " OR \(column) = '\($0)'" }.joined()
        guard !added.isEmpty else { return }
        let widened = sql.replacingCharacters(in: list.endIndex..<list.endIndex, with: added)
        guard csqlite_disable_defensive(handle) == SQLITE_OK else {
            throw SQLiteError.last(on: handle, code: SQLITE_ERROR, sql: nil)
        }
        defer { _ = csqlite_enable_defensive(handle) }
        try execute("PRAGMA writable_schema = ON")
        defer { try? execute("PRAGMA writable_schema = OFF") }
        try run("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", [widened, table])
        guard case .integer(let version) = try singleValue("PRAGMA schema_version") else {
            throw SQLiteError.misuse("no schema version")
        }
        try execute("PRAGMA schema_version = \(version + 1)")
        try execute("PRAGMA writable_schema = OFF")
        _ = try query("SELECT * FROM \(table) LIMIT 0")
    }
}
