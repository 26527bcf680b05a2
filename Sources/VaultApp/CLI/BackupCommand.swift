import ArgumentParser
import Foundation
import Logging
import Vault
import VaultSQLite

/// `vault backup FILE`: a consistent copy of the SQLite database while servers keep writing, and
/// beside it the master key versions it needs.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Copy the SQLite database consistently while the vault serves; write the key versions it needs beside it.",
        discussion: """
            Writes FILE (mode 0600, never overwriting) with SQLite's VACUUM INTO: one read snapshot, so writers \
            never make it start over, and FILE.keys.json naming the master key versions a restore needs. \
            With a passphrase-derived master key it also copies keys/passphrase.salt to FILE.passphrase.salt: the \
            passphrase the backup was taken under and that salt restore it, whatever the passphrase is now. \
            The backup holds no key: keep keys/master.key and keys/retired.key with it. On PostgreSQL it refuses \
            (exit 1): use pg_dump or pg_basebackup.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The backup file to create.")
    var file: String

    func run() async throws {
        let configuration = try global.loadConfiguration()
        VaultLogging.bootstrap(configuration.logging)
        let database = configuration.database
        guard database.url == nil else {
            throw BackupRefused(
                "vault backup copies the SQLite database; this configuration uses \(database.summary). "
                    + "Back PostgreSQL up with pg_dump (or pg_basebackup with WAL archiving) and keep with it the key file "
                    + "and keys/retired.key holding the master key versions `vault keys status` lists")
        }
        guard FileManager.default.fileExists(atPath: database.path) else { throw DatabaseMissing(location: database.absolutePath) }
        try DatabaseFiles.check(path: database.path)
        let manifestPath = BackupManifest.path(forBackup: file)
        guard !FileManager.default.fileExists(atPath: manifestPath) else {
            throw BackupRefused("\(manifestPath) already exists; a backup never overwrites a file (choose a new name)")
        }
        let salt = try Self.passphraseSalt(keysDirectory: configuration.keys.directory)
        let saltCopy = BackupManifest.saltPath(forBackup: file)
        if salt != nil, FileManager.default.fileExists(atPath: saltCopy) {
            throw BackupRefused("\(saltCopy) already exists; a backup never overwrites a file (choose a new name)")
        }
        try SQLiteBackup.write(database: database.path, to: file)
        let contents = try SQLiteBackup.contents(of: file)
        let manifest = BackupManifest(backup: file, migrations: contents.migrations, kekVersions: contents.kekVersions)
        try manifest.write(to: manifestPath)
        if let salt {
            try salt.write(to: saltCopy)
            print("wrote \(VaultConfiguration.absolute(saltCopy)): with it, today's master passphrase restores this backup "
                + "even after the passphrase is changed")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.intValue ?? 0
        let versions = manifest.masterKeyVersionsNeeded.map(String.init).joined(separator: ", ")
        print("wrote \(VaultConfiguration.absolute(file)) (\(size) bytes, migration \(manifest.migration)); "
            + "it needs master key version(s) \(versions) (\(VaultConfiguration.absolute(manifestPath)))")
    }
}

extension BackupCommand {
    /// The passphrase salt file the key source reads (a pending one of an unfinished passphrase
    /// change first), or nil for a vault whose master key is not derived from a passphrase.
    static func passphraseSalt(keysDirectory: String) throws -> PassphraseSaltFile? {
        let saltPath = (keysDirectory as NSString).appendingPathComponent(PassphraseSaltFile.defaultFileName)
        return try PassphraseSaltFile.load(path: MasterKeySource.pendingSaltPath(besideSaltFile: saltPath)) ?? PassphraseSaltFile.load(path: saltPath)
    }
}

/// `vault backup` or `vault restore` refused before changing anything: printed as the error, exit 1.
struct BackupRefused: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
