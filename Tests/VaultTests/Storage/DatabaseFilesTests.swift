import Foundation
import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite

/// A local user must not be able to read the database, its WAL or
/// its shared-memory file, and a server must not start on files that are open to them.
@Suite(.sqliteOnly("the SQLite database file, its WAL and SHM: permissions, symbolic links; PostgreSQL keeps no file of ours")) struct DatabaseFilesTests {
    @Test func aNewDatabaseIsCreatedInAPrivateDirectoryWithPrivateFilesIncludingWALAndSHM() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            try await database.write { try $0.run("INSERT INTO ledger (reference, amount) VALUES (\("r-1"), \(100))") }
            #expect(DatabaseFiles.mode(of: DatabaseFiles.directory(of: path)) == 0o700)
            for file in DatabaseFiles.files(of: path) {
                #expect(DatabaseFiles.mode(of: file) == 0o600, "\(file)")
            }
            try DatabaseFiles.check(path: path)
            database.close()
        }
    }

    @Test func anExistingDatabaseFileIsNotRecreatedOrLoosened() async throws {
        try await withTemporaryDatabasePath { path in
            try DatabaseFiles.prepare(path: path)
            chmod(path, 0o640)
            try DatabaseFiles.prepare(path: path)
            #expect(DatabaseFiles.mode(of: path) == 0o640)
        }
    }

    @Test(arguments: [
        (directory: 0o755 as mode_t, file: 0o600 as mode_t, wal: 0o600 as mode_t),
        (directory: 0o700, file: 0o644, wal: 0o600),
        (directory: 0o700, file: 0o600, wal: 0o604),
        (directory: 0o750, file: 0o660, wal: 0o660),
    ])
    func groupOrWorldAccessibleDirectoryOrFilesAreRefusedWithTheFix(directory: mode_t, file: mode_t, wal: mode_t) async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            try await database.write { try $0.run("INSERT INTO ledger (reference, amount) VALUES (\("r-1"), \(100))") }
            chmod(DatabaseFiles.directory(of: path), directory)
            chmod(path, file)
            chmod(path + "-wal", wal)
            defer { database.close() }
            do {
                try DatabaseFiles.check(path: path)
                Issue.record("modes \(String(directory, radix: 8))/\(String(file, radix: 8))/\(String(wal, radix: 8)) were accepted")
            } catch let error as DatabaseFiles.InsecurePermissions {
                let offenders = Set(error.findings.map(\.path))
                #expect(offenders.contains(DatabaseFiles.directory(of: path)) == (directory & 0o077 != 0))
                #expect(offenders.contains(path) == (file & 0o077 != 0))
                #expect(offenders.contains(path + "-wal") == (wal & 0o077 != 0))
                #expect(error.description.contains("chmod"))
            }
        }
    }

    @Test func aPrivateDatabaseIsAccepted() async throws {
        try await withTemporaryDatabasePath { path in
            let database = try SQLiteDatabase(path: path, migrations: ledgerMigrations)
            defer { database.close() }
            try DatabaseFiles.check(path: path)
        }
    }

    @Test func theDatabaseFileIsNeverCreatedThroughASymbolicLink() async throws {
        try await withTemporaryStorageDirectory { directory in
            let target = directory.appendingPathComponent("elsewhere").path
            let link = directory.appendingPathComponent("vault.sqlite").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            #expect(throws: DatabaseFiles.IOError.self) { try DatabaseFiles.prepare(path: link) }
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }
}
