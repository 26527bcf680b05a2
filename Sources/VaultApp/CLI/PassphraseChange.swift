import Foundation
import Logging
import Scheduler
import Vault

/// `vault keys rotate` with a passphrase-derived master key: changes the passphrase.
///
/// The new passphrase derives a new master key version with a fresh salt; every wrapped key is
/// rewrapped onto it by the same ``Keyring/rewrapAll(batchSize:actor:now:)`` a key-file rotation
/// runs, which retires the old version in its last commit. The order makes an interruption safe:
///
/// 1. both passphrases are checked (the old one against the database's check value) before anything
///    is written, so a wrong old passphrase or a weak new one changes nothing;
/// 2. the new salt file is written as `passphrase.salt.next` (atomically);
/// 3. the keys are rewrapped, and the old version retired;
/// 4. `passphrase.salt.next` is renamed over `passphrase.salt`; the old salt stays as
///    `passphrase.salt.v<old version>` for backups taken before the change.
///
/// The key source reads `passphrase.salt.next` first when it exists: after a crash between 3 and 4
/// the new passphrase opens the vault. A crash before 3 committed leaves a vault neither passphrase
/// opens alone (keys may be under both versions, and the old one is not yet retired): running the
/// same command again (old and new passphrase) finds the pending salt, finishes the rewrap and the
/// rename.
struct PassphraseChange {
    let configuration: VaultConfiguration
    let saltPath: String
    let oldPassphrase: String
    let newPassphrase: String
    let logger: Logger

    /// Why the change is refused before anything is written.
    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs the change; prints what it did.
    func run() async throws {
        if let weakness = PassphraseStrength.weakness(of: newPassphrase) { throw Refused(description: "the new passphrase is refused: \(weakness)") }
        guard newPassphrase != oldPassphrase else { throw Refused(description: "the new master passphrase is the old one") }
        guard let current = try PassphraseSaltFile.load(path: saltPath) else { throw MasterKeyFile.LoadError.missing(path: saltPath) }
        let pendingPath = MasterKeySource.pendingSaltPath(besideSaltFile: saltPath)
        let pending = try PassphraseSaltFile.load(path: pendingPath)
        let store = try await StorageOpener.open(configuration.database, creation: .requireExisting, logger: logger)
        defer { store.close() }
        let known = try await store.kekVersions()
        let next = pending ?? PassphraseSaltFile.fresh(kekVersion: max(current.kekVersion, known.map(\.version).max() ?? 0) + 1)
        guard next.kekVersion > current.kekVersion else {
            throw Refused(description: "\(pendingPath) names master key version \(next.kekVersion), not above \(current.kekVersion) of \(saltPath)")
        }
        let oldKey = try current.ring(passphrase: oldPassphrase)
        let newKey = try next.ring(passphrase: newPassphrase)
        let ring = try MasterKeyRing(keys: [current.kekVersion: oldKey.current, next.kekVersion: newKey.current])
        // The old passphrase must open its version's check value (and, resuming, the new one its
        // own) before a file is written or a key rewrapped.
        try Keyring.check(ring, opens: known)
        if pending == nil { try next.write(to: pendingPath) }
        let keyring = Keyring(masterKeys: ring, store: store)
        let count = try await keyring.rewrapAll(actor: "cli")
        let archive = "\(saltPath).v\(current.kekVersion)"
        try current.write(to: archive)
        try PassphraseSaltFile.move(pendingPath, over: saltPath)
        print("changed the master passphrase: rewrapped \(count) merchant keys under master key version \(next.kekVersion); "
            + "the old passphrase no longer opens the vault. Start servers with the new VAULT_MASTER_PASSPHRASE.")
        print("kept the old salt in \(archive): a backup taken before this change opens with the old passphrase and that salt file")
    }
}
