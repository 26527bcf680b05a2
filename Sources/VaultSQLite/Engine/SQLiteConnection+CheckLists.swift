internal import CSQLite
import Foundation

extension SQLiteConnection {
    /// Rewrites `CHECK (column IN ('a', 'b', ...))` in the stored definitions of `tables` (table
    /// name to columns) as `CHECK (column = 'a' OR column = 'b' OR ...)`, the same constraint.
    ///
    /// SQLite evaluates an `IN` over more than two constants by building a temporary index, on
    /// every insert and on every update of the column: on the charge runner's writer that was a
    /// sixth of a run. Comparisons cost nothing of the kind. A CHECK constraint is not part of
    /// the file format, so the change is made as SQLite documents for it (ALTER TABLE, "making
    /// other kinds of table schema changes"): the definitions are edited in `sqlite_schema` with
    /// `PRAGMA writable_schema`, the schema version is incremented so every connection reloads
    /// them, and each table is read back under the new definition. Runs inside the migration's
    /// transaction; defensive mode is off only meanwhile.
    /// - Throws: `SQLiteError` when a table or one of its `IN` checks is not found as expected
    ///   (nothing is changed then), or when SQLite refuses the new definitions.
    func rewriteCheckListsAsComparisons(_ tables: [String: [String]]) throws {
        try editStoredTableDefinitions(Array(tables.keys)) { table, stored in
            let columns = tables[table] ?? []
            let (sql, rewritten) = Self.checkListsAsComparisons(stored, columns: columns)
            guard rewritten.sorted() == columns.sorted() else {
                throw SQLiteError.misuse("table \(table): expected CHECK (... IN (...)) on \(columns), found it on \(rewritten)")
            }
            return sql
        }
    }

    /// Replaces the stored definitions (`CREATE TABLE ...` text in `sqlite_schema`) of `tables` by
    /// what `edit` makes of each, as SQLite documents for changes ALTER TABLE cannot make: with
    /// `PRAGMA writable_schema`, the schema version incremented so every connection reloads them,
    /// and each table read back under its new definition. Runs inside the caller's (migration's)
    /// transaction; defensive mode is off only meanwhile.
    /// - Throws: `SQLiteError` when a table is missing or SQLite refuses a new definition; what
    ///   `edit` throws (nothing is changed then).
    func editStoredTableDefinitions(_ tables: [String], edit: (_ table: String, _ sql: String) throws -> String) throws {
        guard let handle else { throw SQLiteError.misuse("the database connection is closed") }
        guard csqlite_disable_defensive(handle) == SQLITE_OK else {
            throw SQLiteError.last(on: handle, code: SQLITE_ERROR, sql: nil)
        }
        defer { _ = csqlite_enable_defensive(handle) }
        try execute("PRAGMA writable_schema = ON")
        defer { try? execute("PRAGMA writable_schema = OFF") }
        for table in tables.sorted() {
            guard let stored = try queryOne("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = \(table)") else {
                throw SQLiteError.misuse("no table \(table) to rewrite")
            }
            try run("UPDATE sqlite_schema SET sql = \(edit(table, try stored.string("sql"))) WHERE type = 'table' AND name = \(table)")
        }
        guard case .integer(let version) = try singleValue("PRAGMA schema_version") else {
            throw SQLiteError.misuse("no schema version")
        }
        try execute("PRAGMA schema_version = \(version + 1)")
        try execute("PRAGMA writable_schema = OFF")
        for table in tables.sorted() {
            _ = try query("SELECT * FROM \(unescaped: table) LIMIT 0")
        }
    }

    /// Widens `CHECK (column = 'a' OR column = 'b' ...)` (a list written as comparisons, see
    /// ``rewriteCheckListsAsComparisons(_:)``) in `table`'s stored definition to accept `values`
    /// too; values already allowed are skipped. Every row stays valid, since the constraint only
    /// accepts more.
    /// - Throws: `SQLiteError` when the table has no such check on `column`.
    func addCheckValues(table: String, column: String, values: [String]) throws {
        try editStoredTableDefinitions([table]) { table, stored in
            guard let pattern = try? Regex("CHECK \\((\(column) = '[^']*'(?: OR \(column) = '[^']*')*)\\)"),
                let match = stored.firstMatch(of: pattern), let list = match.output[1].substring
            else {
                throw SQLiteError.misuse("table \(table): expected CHECK (\(column) = '...' OR ...)")
            }
            let added = values.filter { !list.contains("\(column) = '\($0)'") }.map { " OR \(column) = '\($0)'" }.joined()
            return stored.replacingCharacters(in: list.endIndex..<list.endIndex, with: added)
        }
    }

    /// `sql` with each `CHECK (<column> IN ('...', ...))` of one of `columns` written as
    /// comparisons joined by OR, and the columns rewritten, in order.
    static func checkListsAsComparisons(_ sql: String, columns: [String]) -> (sql: String, rewritten: [String]) {
        // CHECK ( column IN ( 'a' , 'b' ... ) ): literals without quotes inside, any white space.
        guard let pattern = try? Regex(#"CHECK\s*\(\s*(\w+)\s+IN\s*\(((?:\s*'[^']*'\s*,)*\s*'[^']*'\s*)\)\s*\)"#) else {
            return (sql, [])
        }
        var output = ""
        var rewritten: [String] = []
        var rest = sql[...]
        while let match = rest.firstMatch(of: pattern) {
            output += rest[..<match.range.lowerBound]
            let column = match.output[1].substring.map(String.init) ?? ""
            let list = match.output[2].substring ?? ""
            if columns.contains(column), let literal = try? Regex(#"'[^']*'"#) {
                let values = list.matches(of: literal).map { String(list[$0.range]) }
                output += "CHECK (" + values.map { "\(column) = \($0)" }.joined(separator: " OR ") + ")"
                rewritten.append(column)
            } else {
                output += rest[match.range]
            }
            rest = rest[match.range.upperBound...]
        }
        output += rest
        return (output, rewritten)
    }
}
