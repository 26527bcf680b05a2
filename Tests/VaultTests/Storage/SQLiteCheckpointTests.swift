import Foundation
import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite

/// WAL checkpoints run beside the writer, and the WAL stays bounded however many pages are written.
@Suite(.sqliteOnly("SQLite WAL checkpoints")) struct SQLiteCheckpointTests {
    static let blobTable = [
        Migration(id: 1, name: "blobs", sql: "CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL);"),
    ]

    /// Writes `rows` rows of one 4 KiB page each, `perWrite` rows per write transaction, `together`
    /// writes queued at a time.
    static func writePages(_ database: SQLiteDatabase, rows: Int, perWrite: Int, together: Int = 16) async throws {
        let writes = rows / perWrite
        try await withThrowingTaskGroup(of: Void.self) { group in
            for first in stride(from: 0, to: writes, by: together) {
                for _ in first..<min(writes, first + together) {
                    group.addTask {
                        try await database.write { connection in
                            for _ in 0..<perWrite {
                                try connection.run("INSERT INTO blobs (data) VALUES (randomblob(4000))")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    static func walBytes(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
    }

    /// Thresholds an eighth of the shipped ones, so the tests write little.
    static var options: SQLiteDatabase.Options {
        var options = SQLiteDatabase.Options()
        options.backgroundCheckpointFrames /= 8
        options.inlineCheckpointFrames /= 8
        return options
    }

    @Test func aWALPastTheBackgroundThresholdIsCheckpointedInTheBackground() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, options: Self.options, migrations: Self.blobTable)
            defer { database.close() }
            #expect(database.backgroundCheckpointCount == 0)
            try await Self.writePages(database, rows: 1_500, perWrite: 10)
            try await waitUntil { database.backgroundCheckpointCount > 0 }
            let count = try await database.read { try $0.queryOne("SELECT count(*) AS n FROM blobs")?.int64("n") }
            #expect(count == 1_500)
        }
    }

    @Test func theWALStaysBoundedUnderASustainedBurst() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, options: Self.options, migrations: Self.blobTable)
            defer { database.close() }
            // Every write queued at once: the writer never pauses, so the WAL is never rewound
            // unless the writer checkpoints itself.
            try await Self.writePages(database, rows: 60_000, perWrite: 50, together: 1_200)
            let bound = (Int(Self.options.inlineCheckpointFrames) + 256 * 50 * 2) * (4096 + 24)
            #expect(Self.walBytes(path) <= bound, "WAL \(Self.walBytes(path)) bytes")
            #expect(Self.walBytes(path) > 0)
        }
    }
}
