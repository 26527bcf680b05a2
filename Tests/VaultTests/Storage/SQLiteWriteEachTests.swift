import Synchronization
import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite

/// `writeEach`: many items in one write body, each ending written or failed on its own.
@Suite(.sqliteOnly("SQLite's batched writeEach")) struct SQLiteWriteEachTests {
    static let insertSQL = "INSERT INTO ledger (reference, amount) VALUES (?, ?)"

    /// A ledger row, as `insertSQL` with its values bound.
    static func insert(_ reference: String, _ amount: Int?) -> SQLiteQuery {
        "INSERT INTO ledger (reference, amount) VALUES (\(reference), \(amount))"
    }

    @Test func anItemThatFailsChangesNothingAndTheItemsAroundItAreWritten() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            try database.writeNow { try $0.run(Self.insert("taken", 1)) }
            let references = ["a", "taken", "b", "c", "taken", "d"]
            let results = try await database.writeEach(references) { connection in
                { reference in
                    // A change made before the item fails must be undone with it.
                    try connection.run(Self.insert(reference + "-note", 0))
                    try connection.run(Self.insert(reference, 2))
                    return reference
                }
            }
            #expect(results.count == references.count)
            for (reference, result) in zip(references, results) {
                switch result {
                case .success(let written):
                    #expect(reference != "taken" && written == reference)
                case .failure(let error):
                    #expect(reference == "taken")
                    #expect((error as? SQLiteError)?.isUniqueViolation == true)
                }
            }
            let stored = try database.readNow { connection in
                try connection.query("SELECT reference FROM ledger ORDER BY reference").map { try $0.string("reference") }
            }
            #expect(stored == ["a", "a-note", "b", "b-note", "c", "c-note", "d", "d-note", "taken"])
        }
    }

    @Test func theBodyIsMadeOncePerWriteSoItsStateLastsAcrossItems() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let made = Mutex(0)
            let results = try await database.writeEach(Array(1...5)) { connection in
                made.withLock { $0 += 1 }
                var position = 0
                return { amount in
                    position += 1
                    try connection.run(Self.insert("r\(amount)", amount))
                    return position
                }
            }
            #expect(made.withLock { $0 } == 1)
            #expect(results.map { try? $0.get() } == [1, 2, 3, 4, 5])
            #expect(try database.ledgerCount() == 5)
        }
    }

    @Test func everyItemFailingLeavesNothingWritten() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let results = try await database.writeEach(["x", "y", "z"]) { connection in
                { reference in try connection.run("INSERT INTO ledger (reference, amount) VALUES (\(reference), NULL)") }
            }
            #expect(results.allSatisfy { (try? $0.get()) == nil })
            #expect(try database.ledgerCount() == 0)
        }
    }

    @Test func noItemsMeansNoWrite() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let commits = database.commitCount
            let results = try await database.writeEach([String]()) { _ in { _ in 0 } }
            #expect(results.isEmpty)
            #expect(database.commitCount == commits)
        }
    }
}
