import Foundation
public import Scheduler
public import VaultPostgres
public import VaultSQLite

/// A migrated, empty database for one test on the engine of the run (`TestEngine.current`): a
/// SQLite file at the path given, or a fresh PostgreSQL database copied from the process's migrated
/// template, dropped when this value goes away.
public final class TestDatabase: Sendable {
    /// Where the database is, to open more stores on it (a second server or runner).
    public enum Location: Sendable {
        case sqlite(path: String)
        case postgres(PostgresURL)
    }

    /// The store every service of the test uses.
    public let storage: any VaultStorage
    public let location: Location

    /// Opens a database on the run's engine; `path` is where the SQLite file goes (ignored on PostgreSQL).
    public init(path: String, engine: TestEngine = .current) async throws {
        switch engine {
        case .sqlite:
            storage = try SQLiteStore(path: path)
            location = .sqlite(path: path)
        case .postgres:
            let url = try await PostgresTestDatabase.newDatabase()
            storage = try await PostgresStore(url: url, logger: PostgresTestDatabase.logger)
            location = .postgres(url)
        }
    }

    /// The engine of this database.
    public var engine: TestEngine {
        if case .postgres = location { return .postgres }
        return .sqlite
    }

    /// Plain SQL against the database (see `TestSQL`).
    public var sql: TestSQL { TestSQL(storage) }

    /// The SQLite store, for tests of the SQLite engine itself (nil on PostgreSQL).
    public var sqlite: SQLiteStore? { storage as? SQLiteStore }

    /// Another store over the same database, as a second process would open it; the caller closes
    /// it (`close(_:)`) when it is PostgreSQL.
    public func openAnother() async throws -> any VaultStorage {
        switch location {
        case .sqlite(let path): try SQLiteStore(path: path)
        case .postgres(let url): try await PostgresStore(url: url, logger: PostgresTestDatabase.logger)
        }
    }

    /// Closes a store opened by `openAnother` (PostgreSQL pools; SQLite closes on release).
    public static func close(_ storage: any VaultStorage) {
        (storage as? PostgresStore)?.close()
    }

    deinit {
        guard case .postgres(let url) = location else { return }
        (storage as? PostgresStore)?.close()
        Task.detached { await PostgresTestDatabase.drop(url) }
    }
}
