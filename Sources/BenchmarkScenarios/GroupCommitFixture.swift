public import Foundation
import Vault
public import VaultSQLite

/// The group-commit workload: `writers` concurrent tasks each commit a one-row write transaction
/// through the SQLite writer with `synchronous=FULL`. Run once with batching (the default
/// `maxBatchSize`) and once with one fsync'd commit per write (`maxBatchSize = 1`) to compare.
///
/// The database lives under `VAULT_BENCHMARK_DIR` when set (it must be a real disk, not tmpfs,
/// for fsync to cost what it costs in production), else the temporary directory.
public final class GroupCommitFixture: Sendable {
    /// Concurrent writers per round.
    public static let writers = 64

    /// The fixture's own directory, removed by ``remove()``.
    public let directory: URL
    /// The database with its one `ledger` table.
    public let database: SQLiteDatabase

    /// A fresh database whose writer commits at most `maxBatchSize` writes at once.
    public init(maxBatchSize: Int) throws {
        directory = BenchmarkDirectory.make("vault-storage-benchmark")
        var options = SQLiteDatabase.Options()
        options.maxBatchSize = maxBatchSize
        let migration = Migration(id: 1, name: "ledger", sql: """
            CREATE TABLE ledger (
                id INTEGER PRIMARY KEY,
                reference TEXT NOT NULL UNIQUE,
                amount INTEGER NOT NULL
            )
            """)
        database = try SQLiteDatabase(
            path: directory.appendingPathComponent("bench.sqlite").path,
            options: options,
            migrations: [migration]
        )
    }

    /// One round: ``writers`` tasks each insert one row in its own write transaction. Returns how
    /// many rows were written (every write must succeed: a failed write stops the benchmark).
    public func writeRound(_ round: Int) async -> Int {
        await withTaskGroup(of: Int64?.self) { group in
            for writer in 0..<Self.writers {
                group.addTask {
                    try? await self.database.write { connection in
                        try connection.run(
                            """
                            INSERT INTO ledger (reference,
                                amount) VALUES (\("w\(writer)-\(round)-\(UInt64.random(in: 0...UInt64.max))"), \(writer))
                            """
                        )
                        return connection.lastInsertRowID
                    }
                }
            }
            var written = 0
            for await rowID in group {
                guard rowID != nil else { fatalError("benchmark write failed") }
                written += 1
            }
            return written
        }
    }

    /// Closes the database and removes its directory.
    public func remove() {
        database.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Where benchmark databases live: `VAULT_BENCHMARK_DIR` when set, else the temporary directory.
enum BenchmarkDirectory {
    static func make(_ prefix: String) -> URL {
        let base = ProcessInfo.processInfo.environment["VAULT_BENCHMARK_DIR"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        return base.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    }
}
