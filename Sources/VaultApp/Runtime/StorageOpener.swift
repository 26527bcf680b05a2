import Foundation
import Logging
import Scheduler
import VaultPostgres
import VaultSQLite

/// Whether opening the vault may create its database.
///
/// Only `vault migrate` and `vault serve` (documented to migrate) create one: every other command
/// started from the wrong directory, or with the wrong `database.path`, would otherwise create and
/// migrate an empty database and report that nothing was due.
public enum DatabaseCreation: Sendable, Equatable {
    /// Create and migrate the database when absent.
    case createIfMissing
    /// Refuse a missing database (``DatabaseMissing``); an existing one is still migrated.
    case requireExisting
}

/// The database a command needs does not exist, and the command does not create one.
public struct DatabaseMissing: Error, CustomStringConvertible, Equatable {
    /// Where it was looked for: an absolute SQLite path, or the PostgreSQL URL without its password.
    public var location: String

    /// The operator's message: where, and what to run.
    public var description: String {
        "no database at \(location); run `vault migrate` first (or check the working directory, --config and VAULT_CONFIG)"
    }
}

/// Opens the storage engine the configuration names: the one place that knows the engines.
///
/// PostgreSQL when `database.url` (or `VAULT_DATABASE_URL`) is set, for several servers and
/// runners on one database; otherwise the embedded SQLite file at `database.path`.
enum StorageOpener {
    /// Opens the store, migrating it; a missing database is created only with `.createIfMissing`.
    ///
    /// Missing means: no SQLite file at `database.path`; on PostgreSQL, a database where no vault
    /// migration was ever applied (the check, made under the migrations' lock, leaves at most an
    /// empty `schema_migrations` table behind).
    /// - Throws: ``DatabaseMissing``; `DatabaseFiles.InsecurePermissions`, `DatabaseFiles.IOError`,
    ///   `SQLiteError`; `PostgresStoreError` when no PostgreSQL server answers.
    static func open(_ database: VaultConfiguration.Database, creation: DatabaseCreation, logger: Logger) async throws -> any VaultStorage {
        if var url = database.url {
            url.maximumConnections = database.maxConnections
            if creation == .requireExisting {
                let probe = try await PostgresStore(url: url, logger: logger, migrations: [])
                let applied = probe.migrationsAtStart
                probe.close()
                guard !applied.isEmpty else { throw DatabaseMissing(location: "PostgreSQL \(url)") }
            }
            return try await PostgresStore(url: url, logger: logger)
        }
        if creation == .requireExisting, !FileManager.default.fileExists(atPath: database.path) {
            throw DatabaseMissing(location: database.absolutePath)
        }
        try DatabaseFiles.check(path: database.path)
        var options = SQLiteDatabase.Options()
        options.readerCount = database.readers
        return try SQLiteStore(path: database.path, options: options)
    }
}
