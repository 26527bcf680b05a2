import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite

@Suite(.sqliteOnly("SQLite's error codes and their mapping")) struct SQLiteErrorTests {
    static let insertSQL = "INSERT INTO ledger (reference, amount) VALUES (?, ?)"

    /// A ledger row, as `insertSQL` with its values bound.
    static func insert(_ reference: String, _ amount: Int?) -> SQLiteQuery {
        "INSERT INTO ledger (reference, amount) VALUES (\(reference), \(amount))"
    }

    @Test func aUniqueViolationCarriesCodesAndSQLButNotTheBoundValues() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let marker = "bound-marker-5be1c0"
            try database.writeNow { try $0.run(Self.insert(marker, 31_337)) }
            let error = expectThrows(SQLiteError.self) {
                try database.writeNow { try $0.run(Self.insert(marker, 31_337)) }
            }
            let caught = try #require(error)
            #expect(caught.code == 19)
            #expect(caught.extendedCode == 2067)
            #expect(caught.isConstraintViolation)
            #expect(caught.isUniqueViolation)
            #expect(!caught.isBusy)
            #expect(caught.sql == Self.insertSQL)
            #expect(caught.description.hasPrefix("SQLite error 2067 (SQLITE_CONSTRAINT_UNIQUE): UNIQUE constraint failed"))
            #expect(caught.description.hasSuffix("[in: \(Self.insertSQL)]"))
            #expect(!caught.description.contains(marker))
            #expect(!caught.message.contains(marker))
            #expect(!String(describing: caught).contains("31337"))
        }
    }

    @Test func aPrimaryKeyViolationIsAUniqueViolation() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            try database.writeNow { try $0.run("INSERT INTO ledger (id, reference, amount) VALUES (\(1), \("a"), \(1))") }
            let error = expectThrows(SQLiteError.self) {
                try database.writeNow { try $0.run("INSERT INTO ledger (id, reference, amount) VALUES (\(1), \("b"), \(1))") }
            }
            #expect(error?.extendedCode == 1555)
            #expect(error?.isUniqueViolation == true)
        }
    }

    @Test func aNotNullViolationIsAConstraintButNotAUniqueViolation() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let error = expectThrows(SQLiteError.self) {
                try database.writeNow { try $0.run(Self.insert("a", nil)) }
            }
            #expect(error?.isConstraintViolation == true)
            #expect(error?.isUniqueViolation == false)
            #expect(error?.description.contains("SQLITE_CONSTRAINT_NOTNULL") == true)
        }
    }

    @Test(arguments: [
        ("SELEC 1", 1),
        ("SELECT 1; SELECT 2", 21),
        ("SELECT ?", 25),
        ("INSERT INTO nowhere VALUES (1)", 1),
    ])
    func badStatementsAreReportedWithTheirSQL(sql: String, code: Int32) async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let error = expectThrows(SQLiteError.self) {
                try database.writeNow { try $0.run(SQLiteQuery(unescaped: sql)) }
            }
            #expect(error?.code == code)
            #expect(error?.sql == sql)
        }
    }

    @Test func aCachedStatementIsReusableAfterItFailed() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            try database.writeNow { connection in
                try connection.run(Self.insert("a", 1))
                expectThrows(SQLiteError.self) { try connection.run(Self.insert("a", 1)) }
                try connection.run(Self.insert("b", 2))
            }
            #expect(try database.ledgerCount() == 2)
        }
    }

    @Test func descriptionWithoutSQLHasNoSuffix() {
        let error = SQLiteError(extendedCode: 5, message: "database is locked")
        #expect(error.description == "SQLite error 5 (SQLITE_BUSY): database is locked")
        #expect(error.isBusy)
    }
}
