import Foundation
import StorageTestSupport
import Testing
import VaultSQLite

/// The suite's engine-neutral SQL: one statement with `?` placeholders runs on PostgreSQL with the
/// same values and reads back the same way as on SQLite.
@Suite("Test SQL on both engines", .postgres)
struct TestSQLTests {
    @Test(arguments: [TestEngine.sqlite, .postgres])
    func aStatementWithPlaceholdersRunsAndReadsBackAlikeOnBothEngines(engine: TestEngine) async throws {
        let directory = NSTemporaryDirectory() + "vault-testsql-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try await TestDatabase(path: directory + "/vault.sqlite", engine: engine)
        let sql = database.sql
        try await sql.run("INSERT INTO meta (key, value) VALUES (\("test.a"), \("it's ?"))")
        #expect(try await sql.count("SELECT count(*) AS n FROM meta WHERE key = \("test.a") AND value = \("it's ?")") == 1)
        #expect(try await sql.count("SELECT count(*) AS n FROM meta WHERE key = 'test.?'") == 0)
        let changed = try await sql.run("UPDATE meta SET value = \("b") WHERE key = \("test.a")")
        #expect(changed == 1)
        let row = try #require(try await sql.queryOne("SELECT value, length(value) AS size FROM meta WHERE key = \("test.a")"))
        #expect(try row.string("value") == "b")
        #expect(try row.int("size") == 1)
        await #expect(throws: (any Error).self) { try await sql.count("SELECT count(*) FROM meta WHERE key = ?") }
    }
}

extension TestSQLTests {
    @Test(arguments: [TestEngine.sqlite, .postgres])
    func everyRowAsTextShowsAValueStoredInClearInAnyTable(engine: TestEngine) async throws {
        let directory = NSTemporaryDirectory() + "vault-testsql-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try await TestDatabase(path: directory + "/vault.sqlite", engine: engine)
        #expect(try await !database.sql.everyRowAsText().contains("4111111111111111"))
        try await database.sql.run("INSERT INTO meta (key, value) VALUES (\("test.leak"), \("card 4111111111111111"))")
        #expect(try await database.sql.everyRowAsText().contains("4111111111111111"))
    }
}
