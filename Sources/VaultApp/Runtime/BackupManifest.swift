import Foundation
import Vault

/// What `vault backup` writes beside a backup (`FILE.keys.json`, mode 0600): the master key
/// versions the backup needs, so the operator knows which key versions to keep with it. It holds
/// version numbers only, never a key.
struct BackupManifest: Codable, Equatable {
    /// The backup file's name.
    var backup: String
    /// When it was taken (ISO 8601, UTC).
    var createdAt: String
    /// The migration level of the copy.
    var migration: Int
    /// The master key versions the copy knows.
    var masterKeyVersions: [Int]
    /// The versions a restore must hold: every known version not retired (still wrapping keys).
    var masterKeyVersionsNeeded: [Int]

    /// The manifest of the backup at `path` with `kekVersions` and `migrations`.
    init(backup path: String, migrations: [Int], kekVersions: [KEKVersionRecord], at date: Date = Date()) {
        backup = (path as NSString).lastPathComponent
        createdAt = Timestamp.string(date)
        migration = migrations.last ?? 0
        masterKeyVersions = kekVersions.map(\.version)
        masterKeyVersionsNeeded = kekVersions.filter { $0.retiredAt == nil }.map(\.version)
    }

    /// The manifest's path for the backup at `path`.
    static func path(forBackup path: String) -> String { path + ".keys.json" }

    /// Where `vault backup` copies the passphrase salt file (`keys/passphrase.salt`) of a vault whose
    /// master key is derived from a passphrase: with the passphrase the backup was taken under, it
    /// derives the master key version the backup needs, even after the passphrase was changed.
    static func saltPath(forBackup path: String) -> String { path + ".passphrase.salt" }

    /// Writes the manifest to the new file `path` (mode 0600, never overwriting, synced).
    /// - Throws: ``BackupRefused`` when the file exists or cannot be written.
    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = try encoder.encode(self) + Data("\n".utf8)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BackupRefused("cannot create \(path): errno \(errno) (a backup never overwrites a file)") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: data)
        try handle.synchronize()
    }
}
