import Benchmark
import Foundation
import Vault
import VaultSQLite

/// Group commit (SPEC §11, §12): 64 concurrent tasks each commit a one-row write transaction
/// through the writer with `synchronous=FULL`, batched (the default) against one fsync'd commit
/// per write (`maxBatchSize = 1`). One scaled iteration is 64 writes; compare the throughputs.
///
/// The database lives under `VAULT_BENCHMARK_DIR` when set (it must be a real disk, not tmpfs,
/// for fsync to cost what it costs in production), else the temporary directory.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .cpuTotal],
        warmupIterations: 2,
        scalingFactor: .one,
        maxDuration: .seconds(5),
        maxIterations: 2_000
    )

    Benchmark("64 concurrent one-row write transactions, group commit (maxBatchSize 256)") { benchmark in
        await concurrentWrites(benchmark, into: batched.database)
    } teardown: {
        batched.remove()
    }

    Benchmark("64 concurrent one-row write transactions, one commit each (maxBatchSize 1)") { benchmark in
        await concurrentWrites(benchmark, into: unbatched.database)
    } teardown: {
        unbatched.remove()
    }
}

let concurrentWriters = 64

/// Each scaled iteration: `concurrentWriters` tasks, each one `write` inserting one row.
func concurrentWrites(_ benchmark: Benchmark, into database: SQLiteDatabase) async {
    for iteration in benchmark.scaledIterations {
        await withTaskGroup(of: Int64.self) { group in
            for writer in 0..<concurrentWriters {
                group.addTask {
                    let rowID = try? await database.write { connection in
                        try connection.run(
                            """
                            INSERT INTO ledger (reference,
                                amount) VALUES (\("w\(writer)-\(iteration)-\(UInt64.random(in: 0...UInt64.max))"), \(writer))
                            """
                        )
                        return connection.lastInsertRowID
                    }
                    guard let rowID else {
                        fatalError("benchmark write failed")
                    }
                    return rowID
                }
            }
            for await rowID in group {
                blackHole(rowID)
            }
        }
    }
}

/// A database in its own directory, removed after the benchmark.
final class StorageFixture: Sendable {
    let directory: URL
    let database: SQLiteDatabase

    init(maxBatchSize: Int) {
        let base = ProcessInfo.processInfo.environment["VAULT_BENCHMARK_DIR"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        directory = base.appendingPathComponent("vault-storage-benchmark-\(UUID().uuidString)", isDirectory: true)
        var options = SQLiteDatabase.Options()
        options.maxBatchSize = maxBatchSize
        let migration = Migration(id: 1, name: "ledger", sql: """
            CREATE TABLE ledger (
                id INTEGER PRIMARY KEY,
                reference TEXT NOT NULL UNIQUE,
                amount INTEGER NOT NULL
            )
            """)
        do {
            database = try SQLiteDatabase(
                path: directory.appendingPathComponent("bench.sqlite").path,
                options: options,
                migrations: [migration]
            )
        } catch {
            fatalError("cannot open the benchmark database: \(error)")
        }
    }

    func remove() {
        database.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

let batched = StorageFixture(maxBatchSize: 256)
let unbatched = StorageFixture(maxBatchSize: 1)
