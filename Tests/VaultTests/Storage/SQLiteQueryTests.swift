import Foundation
import StorageTestSupport
import Testing
@testable import VaultSQLite

@Suite(.sqliteOnly("how the SQLite engine's statements bind their interpolated values")) struct SQLiteQueryTests {
    /// A fresh database with a `ledger` table of references and amounts.
    static func withLedger(_ body: (SQLiteDatabase) async throws -> Void) async throws {
        let nullable = Migration(id: 1, name: "ledger", sql: "CREATE TABLE ledger (id INTEGER PRIMARY KEY, reference TEXT, amount INTEGER)")
        try await withTemporaryDatabase(migrations: [nullable], body)
    }

    @Test func eachInterpolatedValueBecomesAPlaceholderBoundInOrder() {
        let reference = "r-1"
        let amount = 1_250
        let query: SQLiteQuery = "INSERT INTO ledger (reference, amount) VALUES (\(reference), \(amount))"
        #expect(query.sql == "INSERT INTO ledger (reference, amount) VALUES (?, ?)")
        #expect(query.arguments == [.text("r-1"), .integer(1_250)])
    }

    @Test func aLiteralWithoutInterpolationBindsNothing() {
        let query: SQLiteQuery = "SELECT count(*) AS n FROM ledger WHERE amount > 0"
        #expect(query.sql == "SELECT count(*) AS n FROM ledger WHERE amount > 0")
        #expect(query.arguments.isEmpty)
    }

    @Test func aValueWrittenLikeSQLIsStoredAsTextAndRunsNothing() async throws {
        try await Self.withLedger { database in
            let hostile = "x'); DROP TABLE ledger; --"
            try database.writeNow { try $0.run("INSERT INTO ledger (reference, amount) VALUES (\(hostile), \(1))") }
            let row = try database.readNow { try $0.queryOne("SELECT reference FROM ledger WHERE reference = \(hostile)") }
            #expect(try row?.string("reference") == hostile)
            #expect(try database.readNow { try $0.query("SELECT * FROM ledger") }.count == 1)
        }
    }

    @Test func nilBindsNullWhetherTheValueIsOptionalOrNot() async throws {
        try await Self.withLedger { database in
            let missing: Int? = nil
            let present: Int? = 7
            let query: SQLiteQuery = "INSERT INTO ledger (reference, amount) VALUES (\(Optional<String>.none), \(missing)), (\("b"), \(present))"
            #expect(query.arguments == [.null, .null, .text("b"), .integer(7)])
            try database.writeNow { try $0.run(query) }
            let nulls = try database.readNow { try $0.queryOne("SELECT count(*) AS n FROM ledger WHERE amount IS NULL AND reference IS NULL") }
            #expect(try nulls?.int("n") == 1)
        }
    }

    @Test func fragmentsAndConditionsKeepTheirValuesInTheOrderTheyAreWritten() async throws {
        try await Self.withLedger { database in
            try database.writeNow { connection in
                for (reference, amount) in [("a", 100), ("b", 200), ("c", 300), ("d", 400)] {
                    try connection.run("INSERT INTO ledger (reference, amount) VALUES (\(reference), \(amount))")
                }
            }
            let lowest: Int? = 150
            let highest: Int? = 350
            let skipped: String? = nil
            let excluded: SQLiteQuery = "reference <> \("c")"
            var query: SQLiteQuery = "SELECT reference FROM ledger WHERE amount >= \(lowest)"
            query.and(highest) { "amount <= \($0)" }
            query.and(skipped) { "reference = \($0)" }
            query += " AND (\(excluded) OR amount = \(300))"
            query += " ORDER BY amount LIMIT \(10)"
            #expect(query.sql == "SELECT reference FROM ledger WHERE amount >= ? AND amount <= ? AND (reference <> ? OR amount = ?) ORDER BY amount LIMIT ?")
            #expect(query.arguments == [.integer(150), .integer(350), .text("c"), .integer(300), .integer(10)])
            let references = try database.readNow { try $0.query(query).map { try $0.string("reference") } }
            #expect(references == ["b", "c"])
        }
    }

    @Test func aListBindsEachElementAndAnEmptyListWritesNothing() async throws {
        try await Self.withLedger { database in
            try database.writeNow { connection in
                for reference in ["a", "b", "c"] {
                    try connection.run("INSERT INTO ledger (reference, amount) VALUES (\(reference), \(1))")
                }
            }
            let some: SQLiteQuery = "SELECT count(*) AS n FROM ledger WHERE reference IN (\(list: ["a", "c", "z"]))"
            #expect(some.sql.hasSuffix("IN (?, ?, ?)"))
            #expect(try database.readNow { try $0.queryOne(some) }?.int("n") == 2)
            let none: SQLiteQuery = "SELECT count(*) AS n FROM ledger WHERE reference IN (\(list: [String]()))"
            #expect(none.sql.hasSuffix("IN ()") && none.arguments.isEmpty)
            #expect(try database.readNow { try $0.queryOne(none) }?.int("n") == 0)
        }
    }

    @Test func onlyTextAskedForAsUnescapedIsPastedIntoTheStatement() {
        let table = "ledger"
        let query: SQLiteQuery = "SELECT * FROM \(unescaped: table) WHERE reference = \(table)"
        #expect(query.sql == "SELECT * FROM ledger WHERE reference = ?")
        #expect(query.arguments == [.text("ledger")])
    }

    /// Pasted text is SQL the code owns: the stores paste only identifiers read from the schema or
    /// chosen from constants, never a value. A new paste must be added here on purpose.
    @Test func theStoresPasteOnlyIdentifiersIntoTheirStatements() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/VaultSQLite")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var pasted: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" && file.lastPathComponent != "SQLiteQuery.swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            var rest = Substring(text)
            while let range = rest.range(of: "\\(unescaped: ") {
                let name = rest[range.upperBound...].prefix { $0 != ")" }
                pasted.append(file.lastPathComponent + ": " + name)
                rest = rest[range.upperBound...]
            }
        }
        // Status, type and purpose names from the domain's enums (`StatusName.sqlLiteral`): literals
        // the code owns, pasted so each statement's text (and the partial index it uses) stays constant.
        let statusNames = pasted.filter { $0.hasSuffix(".sqlLiteral") || $0.hasSuffix(".sqlLiterals") }
        #expect(statusNames.count > 50)
        pasted.removeAll { $0.hasSuffix(".sqlLiteral") || $0.hasSuffix(".sqlLiterals") }
        #expect(pasted.sorted() == [
            "SQLiteConnection+CheckLists.swift: table",
            // The outbox table's name and the caller's join and condition, written by the stores' code.
            "SQLiteLeasedOutbox.swift: eligible",
            "SQLiteLeasedOutbox.swift: join",
            "SQLiteLeasedOutbox.swift: table",
            "SQLiteLeasedOutbox.swift: table",
            // Step and schedule status names as SQL literals, from the domain's enums (`sqlLiteral`):
            // plain identifiers of ours, pasted so the statement text (and its partial index) stays constant.
            "SQLiteStore+ChargeRuns.swift: Literal.charging",
            "SQLiteStore+ChargeRuns.swift: Literal.charging",
            "SQLiteStore+ChargeRuns.swift: Literal.charging",
            "SQLiteStore+ChargeRuns.swift: Literal.charging",
            "SQLiteStore+ChargeRuns.swift: Literal.extendable",
            "SQLiteStore+ChargeRuns.swift: Literal.processing",
            "SQLiteStore+ChargeRuns.swift: Literal.processing",
            "SQLiteStore+ChargeRuns.swift: Literal.processing",
            "SQLiteStore+ChargeRuns.swift: Literal.retryPending",
            "SQLiteStore+ChargeRuns.swift: Literal.retryPending",
            "SQLiteStore+ChargeRuns.swift: Literal.scheduled",
            "SQLiteStore+ChargeRuns.swift: Literal.scheduled",
            // The partial index of a claimed status and the column it is read in order of, from
            // the constants of `claimRanges`.
            "SQLiteStore+ChargeRuns.swift: range.index",
            "SQLiteStore+ChargeRuns.swift: range.index",
            "SQLiteStore+ChargeRuns.swift: range.order",
            "SQLiteStore+DataKeyDestruction.swift: column",
            "SQLiteStore+DataKeyDestruction.swift: column",
            "SQLiteStore+DataKeyDestruction.swift: column",
            "SQLiteStore+DataKeyDestruction.swift: owner",
            "SQLiteStore+DataKeyDestruction.swift: table",
            // A parent's SET list: column names and integer deltas (Int64, never text) the code writes.
            "SQLiteStore+Transactions.swift: update.assignmentsSQL",
        ])
    }
}
