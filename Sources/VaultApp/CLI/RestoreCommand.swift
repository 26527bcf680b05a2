import ArgumentParser
import Foundation
import Logging
import Vault
import VaultSQLite

/// `vault restore FILE --to DIR`: checks a backup against the key source before anything is
/// written, then lays it out as a vault directory (`DIR/data/vault.sqlite`, `DIR/keys/master.key`).
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Restore a `vault backup` file into a new directory, after checking the keys open it.",
        discussion: """
            Before writing anything, reads FILE (integrity check), and checks that this build knows its migrations and \
            that the key source (the key file, with keys/retired.key or --key-archive, or VAULT_MASTER_KEY) holds and \
            opens every master key version it needs. With VAULT_MASTER_PASSPHRASE, the passphrase the backup was taken \
            under is checked with the salt file `vault backup` wrote beside it (FILE.passphrase.salt; the current \
            keys/passphrase.salt for a backup without one). Then writes DIR/data/vault.sqlite and, with a key file, \
            DIR/keys/master.key holding exactly the versions the backup knows, with a passphrase DIR/keys/passphrase.salt \
            (modes 0600, directories 0700). \
            Exit 0 restored; 1 refused (wrong or missing key, unreadable backup, DIR already holds a vault): nothing written.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The backup file `vault backup` wrote.")
    var file: String

    @Option(help: "The directory to restore into (created; must not hold a database or key file).")
    var to: String

    @Option(help: "Retired master key versions to read (default: retired.key in the keys directory, when present).")
    var keyArchive: String?

    func run() async throws {
        let configuration = try global.loadConfiguration()
        VaultLogging.bootstrap(configuration.logging)
        let source = MasterKeySource(configuration: configuration.keys)
        let databasePath = ((to as NSString).appendingPathComponent("data") as NSString).appendingPathComponent("vault.sqlite")
        let keysDirectory = (to as NSString).appendingPathComponent("keys")
        let keyFilePath = (keysDirectory as NSString).appendingPathComponent(MasterKeyFile.defaultFileName)
        let saltFilePath = (keysDirectory as NSString).appendingPathComponent(PassphraseSaltFile.defaultFileName)
        for existing in [databasePath, keyFilePath, saltFilePath] where FileManager.default.fileExists(atPath: existing) {
            throw BackupRefused("\(VaultConfiguration.absolute(existing)) already exists; restore into a new directory")
        }
        let contents = try SQLiteBackup.contents(of: file)
        let knownMigrations = Set(Schema.migrations.map(\.id))
        if let newer = contents.migrations.first(where: { !knownMigrations.contains($0) }) {
            throw BackupRefused("the backup has migration \(newer), unknown to this build: restore it with the build that wrote it or a newer one")
        }
        guard !contents.kekVersions.isEmpty else { throw BackupRefused("the backup records no master key version: it is not a vault set up with keys") }
        // A passphrase derives the backup's master key with the salt it was taken under.
        let salt: PassphraseSaltFile? =
            if case .passphrase = source {
                try PassphraseSaltFile.load(path: BackupManifest.saltPath(forBackup: file))
                    ?? BackupCommand.passphraseSalt(keysDirectory: configuration.keys.directory)
            } else {
                nil
            }
        let ring = try salt.map { try $0.ring(passphrase: configuration.keys.passphraseFromEnvironment ?? "") }
            ?? keyRing(source: source, configuration: configuration.keys)
        do {
            try Keyring.check(ring, opens: contents.kekVersions)
        } catch {
            throw BackupRefused("the key source cannot open \(file): \(error); nothing was written")
        }
        let restoredRing = try RetiredKeyArchive.restricting(ring, to: contents.kekVersions.map(\.version))
        guard let restoredRing else { throw BackupRefused("the key source holds none of the backup's master key versions") }
        try copy(file, to: databasePath)
        if case .file = source {
            try makePrivateDirectory((keyFilePath as NSString).deletingLastPathComponent)
            try MasterKeyFile.write(restoredRing, to: keyFilePath)
            print("restored \(file) into \(VaultConfiguration.absolute(to)): database at migration \(contents.migrations.last ?? 0), "
                + "master key version(s) \(restoredRing.versions.map(String.init).joined(separator: ", ")) in \(VaultConfiguration.absolute(keyFilePath))")
        } else if let salt {
            try makePrivateDirectory(keysDirectory)
            try salt.write(to: saltFilePath)
            print("restored \(file) into \(VaultConfiguration.absolute(to)): database at migration \(contents.migrations.last ?? 0), "
                + "passphrase salt of master key version \(salt.kekVersion) in \(VaultConfiguration.absolute(saltFilePath)): "
                + "start it with the passphrase the backup was taken under")
        } else {
            print("restored \(file) into \(VaultConfiguration.absolute(to)): database at migration \(contents.migrations.last ?? 0); "
                + "start it with the same key source (\(source.summary))")
        }
    }

    /// The key source's versions with the retired ones of the archive.
    private func keyRing(source: MasterKeySource, configuration: VaultConfiguration.Keys) throws -> MasterKeyRing {
        let ring = try source.load(configuration: configuration)
        let archivePath = keyArchive ?? RetiredKeyArchive.path(in: configuration)
        guard keyArchive != nil || FileManager.default.fileExists(atPath: archivePath) else { return ring }
        return try RetiredKeyArchive.combining(ring, with: try MasterKeyFile.load(path: archivePath))
    }

    /// Copies the backup to a new file, mode 0600, in a 0700 directory, synced to disk.
    private func copy(_ source: String, to destination: String) throws {
        try makePrivateDirectory((destination as NSString).deletingLastPathComponent)
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BackupRefused("cannot create \(destination): errno \(errno)") }
        let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard let input = FileHandle(forReadingAtPath: source) else { throw BackupRefused("cannot read \(source)") }
        defer { try? input.close() }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
        try output.synchronize()
    }

    private func makePrivateDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}
