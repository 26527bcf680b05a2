import Synchronization
import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite

/// `GroupedWrites`: single-item writes made at once share write bodies, and each still ends
/// written or failed on its own.
@Suite(.sqliteOnly("SQLite's grouped single-item writes")) struct GroupedWritesTests {
    static func insert(_ reference: String, _ amount: Int) -> SQLiteQuery {
        "INSERT INTO ledger (reference, amount) VALUES (\(reference), \(amount))"
    }

    @Test func writesMadeWhileTheWriterIsBusyShareAtMostThreeBodiesAndEachIsOnDiskWhenItReturns() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            let bodies = Mutex(0)
            let grouped = GroupedWrites<Int, String>(database: database) { connection in
                bodies.withLock { $0 += 1 }
                return { amount in
                    try connection.run(Self.insert("r\(amount)", amount))
                    return "r\(amount)"
                }
            }
            let gate = WriterGate()
            let holding = Task { try await database.write { _ in gate.holdWriter() } }
            try await waitUntil { gate.isHoldingWriter }
            let count = 50
            let writes = Task {
                try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for amount in 1...count {
                        group.addTask {
                            let reference = try await grouped.write(amount)
                            // Returned only once committed: a reader sees it now.
                            let stored = try await database.read { connection in
                                try connection.queryOne("SELECT amount FROM ledger WHERE reference = \(reference)")?.int("amount")
                            }
                            #expect(stored == amount)
                            return (amount, reference)
                        }
                    }
                    return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
                }
            }
            // Every write is made while the writer is held: at most two bodies are queued behind
            // it, and what arrived after they were taken waits for the next one.
            try await waitUntil { grouped.unansweredCount == count }
            gate.open()
            try await holding.value
            let written = try await writes.value
            #expect(written.count == count)
            #expect(written.allSatisfy { $0.value == "r\($0.key)" })
            #expect(bodies.withLock { $0 } <= 3)
            #expect(try database.ledgerCount() == count)
        }
    }

    @Test func aWriteThatFailsFailsAloneAndTheOthersOfItsBodyAreWritten() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            try database.writeNow { try $0.run(Self.insert("taken", 1)) }
            let grouped = GroupedWrites<String, String>(database: database) { connection in
                { reference in
                    try connection.run(Self.insert(reference + "-note", 0))
                    try connection.run(Self.insert(reference, 2))
                    return reference
                }
            }
            let references = ["a", "b", "taken", "c", "d"]
            let results = await withTaskGroup(of: (String, Bool).self) { group in
                for reference in references {
                    group.addTask { (reference, (try? await grouped.write(reference)) == reference) }
                }
                return await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(results == ["a": true, "b": true, "taken": false, "c": true, "d": true])
            let stored = try database.readNow { connection in
                try connection.query("SELECT reference FROM ledger ORDER BY reference").map { try $0.string("reference") }
            }
            // The failed write's first insert was undone with it.
            #expect(stored == ["a", "a-note", "b", "b-note", "c", "c-note", "d", "d-note", "taken"])
        }
    }

    @Test func aClosedDatabaseFailsTheWrite() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            let grouped = GroupedWrites<Int, Int>(database: database) { connection in
                { amount in
                    try connection.run(Self.insert("r\(amount)", amount))
                    return amount
                }
            }
            #expect(try await grouped.write(1) == 1)
            database.close()
            do {
                _ = try await grouped.write(2)
                Issue.record("a write to a closed database returned")
            } catch {
                #expect(error is SQLiteError)
            }
        }
    }
}

/// `GroupedWrites` over any write: how many items one write carries, and each item's own result.
@Suite struct GroupedWritesLimitTests {
    struct Refused: Error, Equatable {
        let item: Int
    }

    @Test func aWriteCarriesAtMostItsLimitAndEachItemGetsItsOwnResult() async throws {
        let sizes = Mutex<[Int]>([])
        let released = Mutex(false)
        let grouped = GroupedWrites<Int, Int>(writesInFlight: 2, itemsPerWrite: 5) { items in
            sizes.withLock { $0.append(items.count) }
            while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
            return items.map { item in item.isMultiple(of: 7) ? .failure(Refused(item: item)) : .success(item * 2) }
        }
        let count = 23
        let writes = Task {
            await withTaskGroup(of: (Int, Result<Int, Refused>).self) { group in
                for item in 1...count {
                    group.addTask {
                        do {
                            return (item, .success(try await grouped.write(item)))
                        } catch let refused as Refused {
                            return (item, .failure(refused))
                        } catch {
                            return (item, .failure(Refused(item: -1)))
                        }
                    }
                }
                return await group.reduce(into: [Int: Result<Int, Refused>]()) { $0[$1.0] = $1.1 }
            }
        }
        // Every item is made while the first writes are held; the rest wait in line.
        try await waitUntil { grouped.unansweredCount == count }
        released.withLock { $0 = true }
        let results = await writes.value
        #expect(results.count == count)
        for (item, result) in results {
            #expect(result == (item.isMultiple(of: 7) ? .failure(Refused(item: item)) : .success(item * 2)))
        }
        let written = sizes.withLock { $0 }
        #expect(written.reduce(0, +) == count)
        #expect(written.allSatisfy { $0 >= 1 && $0 <= 5 }, "\(written)")
        #expect(written.count >= count / 5)
        #expect(grouped.unansweredCount == 0)
    }
}
