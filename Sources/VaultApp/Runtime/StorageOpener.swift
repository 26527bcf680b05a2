import Logging
import Scheduler
import VaultPostgres
import VaultSQLite

/// Opens the storage engine the configuration names: the one place that knows the engines.
///
/// PostgreSQL when `database.url` (or `VAULT_DATABASE_URL`) is set, for several servers and
/// runners on one database; otherwise the embedded SQLite file at `database.path`.
enum StorageOpener {
    /// Opens (creating and migrating if needed) the store.
    /// - Throws: `DatabaseFiles.InsecurePermissions`, `DatabaseFiles.IOError`, `SQLiteError`;
    ///   `PostgresStoreError` when no PostgreSQL server answers.
    static func open(_ database: VaultConfiguration.Database, logger: Logger) async throws -> any VaultStorage {
        if var url = database.url {
            url.maximumConnections = database.maxConnections
            return try await PostgresStore(url: url, logger: logger)
        }
        try DatabaseFiles.check(path: database.path)
        var options = SQLiteDatabase.Options()
        options.readerCount = database.readers
        return try SQLiteStore(path: database.path, options: options)
    }
}
