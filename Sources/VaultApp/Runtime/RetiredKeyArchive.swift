import Foundation
import Vault

/// The master key versions `vault keys rotate` retires, kept in `retired.key` beside the key file.
///
/// A rotation removes retired versions from `master.key`, so no running server holds a key it no
/// longer needs; but a backup taken before the rotation still has its keys wrapped under them.
/// They are moved here instead of being dropped: the operator backs this file up with the key
/// file, and `vault restore` reads it to open an older backup. Servers never read it.
enum RetiredKeyArchive {
    /// The archive's file name in the keys directory.
    static let fileName = "retired.key"

    /// The archive beside the key file at `keyFile`.
    static func path(besideKeyFile keyFile: String) -> String {
        ((keyFile as NSString).deletingLastPathComponent as NSString).appendingPathComponent(fileName)
    }

    /// The archive of the keys directory of `configuration`.
    static func path(in configuration: VaultConfiguration.Keys) -> String {
        (configuration.directory as NSString).appendingPathComponent(fileName)
    }

    /// Adds the versions of `ring` below its current version to the archive at `path` (created
    /// mode 0600 if absent; replaced atomically). Versions already archived stay.
    /// - Returns: the versions added, ascending (empty when `ring` holds no older version).
    /// - Throws: `MasterKeyFile.LoadError` for an existing archive that cannot be read; I/O errors.
    @discardableResult
    static func archive(versionsBelowCurrentOf ring: MasterKeyRing, at path: String) throws -> [Int] {
        let retired = ring.versions.filter { $0 < ring.currentVersion }
        guard !retired.isEmpty else { return [] }
        var keys: [Int: SecureBytes] = [:]
        if FileManager.default.fileExists(atPath: path) {
            let existing = try MasterKeyFile.load(path: path)
            for version in existing.versions { keys[version] = existing.key(version: version) }
        }
        for version in retired { keys[version] = ring.key(version: version) }
        try MasterKeyFile.write(try MasterKeyRing(keys: keys), to: path)
        return retired
    }

    /// `ring` with every version of `archive` it lacks (the key source wins where both hold one).
    static func combining(_ ring: MasterKeyRing, with archive: MasterKeyRing?) throws -> MasterKeyRing {
        guard let archive else { return ring }
        var keys: [Int: SecureBytes] = [:]
        for version in archive.versions { keys[version] = archive.key(version: version) }
        for version in ring.versions { keys[version] = ring.key(version: version) }
        return try MasterKeyRing(keys: keys)
    }

    /// `ring` reduced to `versions` (those it holds), or nil when it holds none of them.
    static func restricting(_ ring: MasterKeyRing, to versions: [Int]) throws -> MasterKeyRing? {
        var keys: [Int: SecureBytes] = [:]
        for version in versions { keys[version] = ring.key(version: version) }
        return keys.isEmpty ? nil : try MasterKeyRing(keys: keys)
    }
}
