import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite

@Suite(.sqliteOnly("SQLite migrations (Schema.swift); PostgreSQL's migrator is tested in VaultPostgresTests")) struct SQLiteMigrationTests {
    static let firstTwo = [
        Migration(id: 1, name: "create cards", sql: "CREATE TABLE cards (id INTEGER PRIMARY KEY, reference TEXT NOT NULL)"),
        Migration(id: 2, name: "index cards") { connection in
            try connection.execute("CREATE UNIQUE INDEX cards_reference ON cards(reference)")
        },
    ]
    static let third = Migration(id: 3, name: "add status", sql: "ALTER TABLE cards ADD COLUMN status TEXT")

    @Test func migratesAnEmptyDatabaseInIdOrder() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: Self.firstTwo)
            defer { database.close() }
            #expect(try database.appliedMigrations == [1, 2])
            let names = try database.readNow { connection in
                try connection.query("SELECT name FROM schema_migrations ORDER BY id").map { try $0.string("name") }
            }
            #expect(names == ["create cards", "index cards"])
            let index = try database.readNow { try $0.queryOne("SELECT name FROM sqlite_master WHERE name = 'cards_reference'") }
            #expect(index != nil)
        }
    }

    @Test func reopeningWithTheSameMigrationsChangesNothing() async throws {
        try await withTemporaryDatabasePath { path in
            let first = try SQLiteDatabase(path: path, migrations: Self.firstTwo)
            let appliedAt = try first.readNow { try $0.query("SELECT applied_at FROM schema_migrations ORDER BY id") }
            first.close()

            let second = try SQLiteDatabase(path: path, migrations: Self.firstTwo)
            defer { second.close() }
            #expect(try second.appliedMigrations == [1, 2])
            let appliedAgain = try second.readNow { try $0.query("SELECT applied_at FROM schema_migrations ORDER BY id") }
            #expect(appliedAgain.map(\.values) == appliedAt.map(\.values))
        }
    }

    @Test func reopeningWithANewMigrationAppliesOnlyThatOne() async throws {
        try await withTemporaryDatabasePath { path in
            try SQLiteDatabase(path: path, migrations: Self.firstTwo).close()
            let database = try SQLiteDatabase(path: path, migrations: Self.firstTwo + [Self.third])
            defer { database.close() }
            #expect(try database.appliedMigrations == [1, 2, 3])
            try database.writeNow { try $0.run("INSERT INTO cards (reference, status) VALUES (\("r1"), \("active"))") }
        }
    }

    @Test func refusesADatabaseMigratedByANewerBuild() async throws {
        try await withTemporaryDatabasePath { path in
            try SQLiteDatabase(path: path, migrations: Self.firstTwo + [Self.third]).close()
            let error = expectThrows(SQLiteError.self) {
                try SQLiteDatabase(path: path, migrations: Self.firstTwo).close()
            }
            #expect(error?.message.contains("migration 3") == true)
            #expect(error?.message.contains("newer") == true)
        }
    }

    @Test(arguments: [[2, 1], [1, 1], [3, 2, 4]])
    func refusesMigrationIdsThatDoNotStrictlyIncrease(ids: [Int]) async throws {
        try await withTemporaryDatabasePath { path in
            let migrations = ids.map { Migration(id: $0, name: "m\($0)", sql: "CREATE TABLE t\($0) (x)") }
            expectThrows(SQLiteError.self) {
                try SQLiteDatabase(path: path, migrations: migrations).close()
            }
        }
    }

    @Test func aFailingMigrationLeavesNoTraceAndIsNotRecorded() async throws {
        try await withTemporaryDatabasePath { path in
            let broken = Migration(id: 3, name: "broken", sql: """
                CREATE TABLE half_done (x);
                INSERT INTO no_such_table VALUES (1);
                """)
            expectThrows(SQLiteError.self) {
                try SQLiteDatabase(path: path, migrations: Self.firstTwo + [broken]).close()
            }
            let database = try SQLiteDatabase(path: path, migrations: Self.firstTwo)
            defer { database.close() }
            #expect(try database.appliedMigrations == [1, 2])
            let halfDone = try database.readNow { try $0.queryOne("SELECT 1 FROM sqlite_master WHERE name = 'half_done'") }
            #expect(halfDone == nil)
        }
    }
}

@Suite(.sqliteOnly("SQLite files opened by several processes at once")) struct SQLiteConcurrentOpenTests {
    @Test func processesOpeningAFreshFileTogetherMigrateItOnce() async throws {
        try await withTemporaryDatabasePath { path in
            let migrations = SQLiteMigrationTests.firstTwo
            let opened = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let database = try SQLiteDatabase(path: path, migrations: migrations)
                        defer { database.close() }
                        return try database.appliedMigrations
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(opened == Array(repeating: [1, 2], count: 4))
        }
    }
}
