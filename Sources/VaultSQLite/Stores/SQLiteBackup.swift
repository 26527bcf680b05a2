internal import CSQLite
import Foundation
public import Vault

/// Backups of the SQLite database, and what a backup file holds, read without changing it.
///
/// A backup is `VACUUM INTO` a new file: one read transaction over the live database (WAL mode
/// keeps it consistent while servers write, and writers never make it start over, unlike the
/// online backup API stepped a few pages at a time, which restarts whenever another connection
/// writes). The copy is compact and carries no `-wal` file.
public enum SQLiteBackup {
    /// Why a backup could not be written or read.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The destination already exists; a backup never overwrites anything.
        case destinationExists(path: String)
        /// The file is not a vault database SQLite can read whole.
        case unreadable(path: String, reason: String)

        /// The operator's message.
        public var description: String {
            switch self {
            case .destinationExists(let path): "\(path) already exists; a backup never overwrites a file (choose a new name)"
            case .unreadable(let path, let reason): "\(path) is not a readable vault database: \(reason)"
            }
        }
    }

    /// What a backup file holds that a restore must check before it writes anything.
    public struct Contents: Sendable, Equatable {
        /// The migration ids recorded in it, ascending.
        public var migrations: [Int]
        /// Its master key versions with their check values.
        public var kekVersions: [KEKVersionRecord]
    }

    /// Writes a consistent copy of the database at `database` to the new file `destination`
    /// (created mode 0600 before a byte is written, never through a symbolic link), synced to disk.
    /// A copy that fails midway is removed.
    /// - Throws: ``Failure/destinationExists(path:)``; `DatabaseFiles.IOError`; `SQLiteError`.
    public static func write(database: String, to destination: String) throws {
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST { throw Failure.destinationExists(path: destination) }
            throw DatabaseFiles.IOError(operation: "create", path: destination, code: code)
        }
        close(descriptor)
        do {
            let source = try SQLiteConnection(path: database, role: .backup, busyTimeoutMilliseconds: 60_000)
            defer { source.close() }
            try source.run("VACUUM INTO \(destination)")
            try sync(destination)
            try sync(DatabaseFiles.directory(of: destination))
        } catch {
            unlink(destination)
            throw error
        }
    }

    /// Reads a backup file's migrations and master key versions after checking it whole
    /// (`PRAGMA quick_check`). The file is opened read-only and immutable: nothing is written,
    /// not even a `-wal` or `-shm` file beside it.
    /// - Throws: ``Failure/unreadable(path:reason:)``.
    public static func contents(of path: String) throws -> Contents {
        guard FileManager.default.fileExists(atPath: path) else { throw Failure.unreadable(path: path, reason: "no such file") }
        do {
            let connection = try SQLiteConnection(path: path, role: .inspector, busyTimeoutMilliseconds: 1_000)
            defer { connection.close() }
            guard case .text(let check) = try connection.singleValue("PRAGMA quick_check"), check == "ok" else {
                throw Failure.unreadable(path: path, reason: "the integrity check failed")
            }
            let migrations = try Migrator.appliedIDs(connection)
            let versions = try connection.query("SELECT * FROM kek_versions ORDER BY version").map { row in
                let stored = TableRow(row, table: "kek_versions", id: String(try row.int("version")))
                return KEKVersionRecord(
                    version: try row.int("version"), checkValue: try row.blob("check_value"), createdAt: try stored.instant("created_at"),
                    retiredAt: try stored.optionalInstant("retired_at"))
            }
            return Contents(migrations: migrations, kekVersions: versions)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure.unreadable(path: path, reason: "\(error)")
        }
    }

    /// The migration ids applied to the live database at `path`, read without applying any.
    /// - Throws: `SQLiteError`.
    public static func appliedMigrations(database path: String) throws -> [Int] {
        let connection = try SQLiteConnection(path: path, role: .reader, busyTimeoutMilliseconds: 5_000)
        defer { connection.close() }
        let table = try connection.queryOne("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        return table == nil ? [] : try Migrator.appliedIDs(connection)
    }

    private static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw DatabaseFiles.IOError(operation: "open", path: path, code: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw DatabaseFiles.IOError(operation: "fsync", path: path, code: errno) }
    }
}
