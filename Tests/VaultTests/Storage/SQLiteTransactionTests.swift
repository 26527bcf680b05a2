import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite

struct DeliberateFailure: Error, Equatable {}

@Suite(.sqliteOnly("SQLite transactions and savepoints of the single writer; PostgreSQL's are tested in VaultPostgresTests")) struct SQLiteTransactionTests {
    /// A bare writer connection on a fresh file, with a `ledger` table.
    static func withLedgerConnection(_ body: (SQLiteConnection) throws -> Void) async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            database.close()
            let connection = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 1_000)
            defer { connection.close() }
            try body(connection)
        }
    }

    static func count(_ connection: SQLiteConnection) throws -> Int {
        try connection.queryOne("SELECT count(*) AS n FROM ledger")?.int("n") ?? -1
    }

    @Test func inTransactionCommitsWhatTheBodyWrote() async throws {
        try await Self.withLedgerConnection { connection in
            let id = try connection.inTransaction {
                #expect(connection.isInTransaction)
                try connection.run("INSERT INTO ledger (reference, amount) VALUES (\("a"), \(100))")
                return connection.lastInsertRowID
            }
            #expect(id == 1)
            #expect(!connection.isInTransaction)
            #expect(try Self.count(connection) == 1)
        }
    }

    @Test func inTransactionRollsBackAndRethrowsWhenTheBodyThrows() async throws {
        try await Self.withLedgerConnection { connection throws in
            expectThrows(DeliberateFailure.self) {
                try connection.inTransaction {
                    try connection.run("INSERT INTO ledger (reference, amount) VALUES (\("a"), \(100))")
                    throw DeliberateFailure()
                }
            }
            #expect(!connection.isInTransaction)
            #expect(try Self.count(connection) == 0)
        }
    }

    @Test func inTransactionRethrowsTheBodysErrorWhenTheBodyAlreadyRolledBack() async throws {
        try await Self.withLedgerConnection { connection in
            expectThrows(DeliberateFailure.self) {
                try connection.inTransaction {
                    try connection.execute("ROLLBACK")
                    throw DeliberateFailure()
                }
            }
            #expect(!connection.isInTransaction)
        }
    }

    @Test func nestedInTransactionBecomesASavepoint() async throws {
        try await Self.withLedgerConnection { connection in
            try connection.inTransaction {
                try connection.run("INSERT INTO ledger (reference, amount) VALUES (\("kept"), \(1))")
                expectThrows(DeliberateFailure.self) {
                    try connection.inTransaction {
                        try connection.run("INSERT INTO ledger (reference, amount) VALUES (\("dropped"), \(2))")
                        throw DeliberateFailure()
                    }
                }
                #expect(connection.isInTransaction)
            }
            let references = try connection.query("SELECT reference FROM ledger").map { try $0.string("reference") }
            #expect(references == ["kept"])
        }
    }

    @Test func inSavepointReleasesOnSuccessAndRollsBackOnThrow() async throws {
        try await Self.withLedgerConnection { connection in
            try connection.inTransaction {
                try connection.inSavepoint {
                    try connection.run("INSERT INTO ledger (reference, amount) VALUES (\("saved"), \(1))")
                }
                expectThrows(DeliberateFailure.self) {
                    try connection.inSavepoint {
                        try connection.run("INSERT INTO ledger (reference, amount) VALUES (\("undone"), \(2))")
                        throw DeliberateFailure()
                    }
                }
            }
            let references = try connection.query("SELECT reference FROM ledger").map { try $0.string("reference") }
            #expect(references == ["saved"])
        }
    }

    @Test func aThrowingWriteBodyIsRolledBackWhileTheRestOfItsBatchCommits() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let gate = WriterGate()
            async let held: Void = database.write { _ in gate.holdWriter() }
            try await waitUntil { gate.isHoldingWriter }
            let commitsBefore = database.commitCount

            async let first: Void = database.write { try $0.run("INSERT INTO ledger (reference, amount) VALUES ('first', 1)") }
            try await waitUntil { database.queuedWriteCount == 1 }
            async let failing: Void = database.write { connection in
                try connection.run("INSERT INTO ledger (reference, amount) VALUES ('failing', 2)")
                throw DeliberateFailure()
            }
            try await waitUntil { database.queuedWriteCount == 2 }
            async let last: Void = database.write { try $0.run("INSERT INTO ledger (reference, amount) VALUES ('last', 3)") }
            try await waitUntil { database.queuedWriteCount == 3 }
            gate.open()

            try await held
            try await first
            do {
                try await failing
                Issue.record("the failing body's error was not rethrown")
            } catch {
                #expect(error as? DeliberateFailure == DeliberateFailure())
            }
            try await last
            #expect(database.commitCount - commitsBefore == 2)
            let references = try database.readNow { connection in
                try connection.query("SELECT reference FROM ledger ORDER BY id").map { try $0.string("reference") }
            }
            #expect(references == ["first", "last"])
        }
    }

    @Test func writeNowFromInsideAWriteBodyThrowsInsteadOfDeadlocking() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let error = try await database.write { _ in
                do {
                    try database.writeNow { _ in }
                    return nil as SQLiteError?
                } catch let error as SQLiteError {
                    return error
                }
            }
            #expect(error?.code == 21)
        }
    }
}
