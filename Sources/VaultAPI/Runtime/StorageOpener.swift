import Scheduler
import VaultSQLite

/// Opens the storage engine the configuration names: the one place that knows the engines.
///
/// Today SQLite at `database.path`; a PostgreSQL `database.url` becomes one more case here.
enum StorageOpener {
    /// Checks the database's files, then opens (creating and migrating if needed) the store.
    /// - Throws: `DatabaseFiles.InsecurePermissions`, `DatabaseFiles.IOError`, `SQLiteError`.
    static func open(_ database: VaultConfiguration.Database) throws -> any VaultStorage {
        try DatabaseFiles.check(path: database.path)
        var options = SQLiteDatabase.Options()
        options.readerCount = database.readers
        return try SQLiteStore(path: database.path, options: options)
    }
}
