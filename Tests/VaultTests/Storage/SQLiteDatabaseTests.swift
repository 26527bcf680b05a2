import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite

@Suite(.sqliteOnly("the SQLite engine: its single writer's batches, pragmas, reader pool, closing")) struct SQLiteDatabaseTests {
    static let insertSQL = "INSERT INTO ledger (reference, amount) VALUES (?, ?)"

    /// A ledger row, as `insertSQL` with its values bound.
    static func insert(_ reference: String, _ amount: Int?) -> SQLiteQuery {
        "INSERT INTO ledger (reference, amount) VALUES (\(reference), \(amount))"
    }

    /// Queues `count` one-row writes behind a held writer, releases it, and returns
    /// how many commits they took.
    @Test func theWriterThreadRunsUnderItsOwnNameForOperators() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, options: .init(), migrations: ledgerMigrations)
            defer { database.close() }
            let name = try await database.write { _ in NamedThread.currentName() }
            #expect(name == "vault-db-writer")
        }
    }

    static func commitsForHeldConcurrentWrites(count: Int, options: SQLiteDatabase.Options) async throws -> Int {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, options: options, migrations: ledgerMigrations)
            defer { database.close() }
            let gate = WriterGate()
            async let held: Void = database.write { _ in gate.holdWriter() }
            try await waitUntil { gate.isHoldingWriter }
            let commitsBefore = database.commitCount

            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<count {
                    group.addTask {
                        try await database.write { try $0.run(Self.insert("r\(number)", number)) }
                    }
                }
                try await waitUntil { database.queuedWriteCount == count }
                gate.open()
                try await group.waitForAll()
            }
            try await held
            #expect(try database.ledgerCount() == count)
            return database.commitCount - commitsBefore
        }
    }

    @Test func concurrentWritesShareOneCommit() async throws {
        let commits = try await Self.commitsForHeldConcurrentWrites(count: 64, options: .init())
        // One commit for the held write's batch, one for all 64 queued behind it.
        #expect(commits == 2)
    }

    @Test func batchSizeOneCommitsEveryWriteOnItsOwn() async throws {
        var options = SQLiteDatabase.Options()
        options.maxBatchSize = 1
        let commits = try await Self.commitsForHeldConcurrentWrites(count: 16, options: options)
        #expect(commits == 17)
    }

    @Test func batchesAreCappedAtMaxBatchSize() async throws {
        var options = SQLiteDatabase.Options()
        options.maxBatchSize = 10
        let commits = try await Self.commitsForHeldConcurrentWrites(count: 25, options: options)
        #expect(commits == 1 + 3)
    }

    @Test func everyConnectionUsesWALAndTheRequiredPragmas() async throws {
        try await withTemporaryDatabasePath { path in
            var options = SQLiteDatabase.Options()
            options.busyTimeoutMilliseconds = 4_321
            let database = try SQLiteDatabase(path: path, options: options, migrations: ledgerMigrations)
            defer { database.close() }
            let pragmas = ["journal_mode", "synchronous", "foreign_keys", "secure_delete", "busy_timeout", "query_only"]
            func read(_ connection: SQLiteConnection) throws -> [SQLiteValue] {
                try pragmas.map { try connection.singleValue("PRAGMA \($0)") }
            }
            let reader = try database.readNow(read)
            let writer = try database.writeNow(read)
            #expect(reader == [.text("wal"), .integer(2), .integer(1), .integer(1), .integer(4_321), .integer(1)])
            #expect(writer == [.text("wal"), .integer(2), .integer(1), .integer(1), .integer(4_321), .integer(0)])
        }
    }

    /// A commit after a B-tree balance that reordered pages walks the writer's whole page cache,
    /// so the writer's cache is capped at 2,048 pages (8 MiB) while readers, which never write,
    /// keep a larger one. Both stay above SQLite's 2 MiB default, which sends more reads to the
    /// kernel.
    @Test func theWritersPageCacheIsCappedBecauseCommitsMayWalkIt() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let writerKibibytes = try database.writeNow { try $0.singleValue("PRAGMA cache_size") }
            let readerKibibytes = try database.readNow { try $0.singleValue("PRAGMA cache_size") }
            #expect(writerKibibytes == .integer(-8_192))
            #expect(readerKibibytes == .integer(-16_384))
        }
    }

    @Test func readersRefuseToWrite() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let error = expectThrows(SQLiteError.self) {
                try database.readNow { try $0.run(Self.insert("a", 1)) }
            }
            #expect(error?.code == 8)
            #expect(try database.ledgerCount() == 0)
        }
    }

    @Test func readsSeeCommittedWrites() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let rowID = try await database.write { connection in
                try connection.run(Self.insert("committed", 250))
                return connection.lastInsertRowID
            }
            let amount = try await database.read { connection in
                try connection.queryOne("SELECT amount FROM ledger WHERE id = \(rowID)")?.int("amount")
            }
            #expect(amount == 250)
        }
    }

    /// A single-statement read runs outside an explicit transaction: it must still see what was
    /// committed, give its reader back (also when the statement fails) and hold no snapshot after it
    /// returns, or a checkpoint could never cut the write-ahead log.
    @Test func aOneStatementReadSeesCommitsReturnsItsReaderAndHoldsNoSnapshot() async throws {
        try await withTemporaryDatabasePath { path in
            var options = SQLiteDatabase.Options()
            options.readerCount = 1
            let database = try SQLiteDatabase(path: path, options: options, migrations: ledgerMigrations)
            defer { database.close() }
            #expect(try await database.readOne("SELECT amount FROM ledger WHERE reference = \("first")") == nil)
            try await database.write { try $0.run(Self.insert("first", 250)) }
            #expect(try await database.readOne("SELECT amount FROM ledger WHERE reference = \("first")")?.int("amount") == 250)

            let error = await #expect(throws: SQLiteError.self) {
                try await database.readOne("SELECT amount FROM no_such_table")
            }
            #expect(error?.description.contains("no_such_table") == true)
            for number in 0..<8 { try await database.write { try $0.run(Self.insert("r\(number)", number)) } }
            // The one reader was given back after the failure, and the row read above left no read
            // transaction open on it: the log can be checkpointed to nothing and cut.
            #expect(try await database.readOne("SELECT count(*) AS n FROM ledger")?.int("n") == 9)
            #expect(await database.truncateWAL())
            #expect(try database.readNow { try $0.queryOne("SELECT amount FROM ledger WHERE reference = \("r7")")?.int("amount") } == 7)
        }
    }

    @Test func concurrentReadsBeyondThePoolSizeWaitForAReader() async throws {
        try await withTemporaryDatabasePath { path in
            var options = SQLiteDatabase.Options()
            options.readerCount = 1
            let database = try SQLiteDatabase(path: path, options: options, migrations: ledgerMigrations)
            defer { database.close() }
            try await database.write { try $0.run(Self.insert("a", 1)) }
            let total = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<32 {
                    group.addTask { try await database.read { try $0.queryOne("SELECT count(*) AS n FROM ledger")?.int("n") ?? 0 } }
                }
                return try await group.reduce(0, +)
            }
            #expect(total == 32)
        }
    }

    @Test func twoDatabasesOnOneFileWriteConcurrentlyWithoutLockErrors() async throws {
        try await withTemporaryDatabasePath { path in
            var options = SQLiteDatabase.Options()
            options.readerCount = 1
            let server = try SQLiteDatabase(path: path, options: options, migrations: ledgerMigrations)
            let runner = try SQLiteDatabase(path: path, options: options, migrations: ledgerMigrations)
            defer {
                server.close()
                runner.close()
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<40 {
                    let database = number.isMultiple(of: 2) ? server : runner
                    group.addTask {
                        try await database.write { try $0.run(Self.insert("p\(number)", number)) }
                    }
                }
                try await group.waitForAll()
            }
            for _ in 0..<10 {
                try server.writeNow { try $0.run("UPDATE ledger SET amount = amount + 1") }
                try runner.writeNow { try $0.run("UPDATE ledger SET amount = amount + 1") }
            }
            #expect(try server.ledgerCount() == 40)
            #expect(try runner.ledgerCount() == 40)
            let total = try runner.readNow { try $0.queryOne("SELECT sum(amount) AS total FROM ledger")?.int("total") }
            #expect(total == (0..<40).reduce(0, +) + 40 * 20)
        }
    }

    @Test func closeIsIdempotentAndLaterCallsThrow() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            try await database.write { try $0.run(Self.insert("a", 1)) }
            database.close()
            database.close()
            await expectThrowsAsync(SQLiteError.self) {
                try await database.write { try $0.run(Self.insert("b", 2)) }
            }
            expectThrows(SQLiteError.self) { try database.writeNow { _ in } }
            await expectThrowsAsync(SQLiteError.self) { try await database.read { _ in } }
            expectThrows(SQLiteError.self) { try database.readNow { _ in } }

            let reopened = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { reopened.close() }
            #expect(try reopened.ledgerCount() == 1)
        }
    }

    @Test func closeFinishesWritesAlreadyQueued() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            let gate = WriterGate()
            async let held: Void = database.write { _ in gate.holdWriter() }
            try await waitUntil { gate.isHoldingWriter }
            async let queued: Void = database.write { try $0.run(Self.insert("queued", 1)) }
            try await waitUntil { database.queuedWriteCount == 1 }
            gate.open()
            database.close()
            try await held
            try await queued

            let reopened = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { reopened.close() }
            #expect(try reopened.ledgerCount() == 1)
        }
    }
}
