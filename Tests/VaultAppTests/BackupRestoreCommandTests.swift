import Foundation
import StorageTestSupport
import Testing
import Vault
@testable import VaultApp
@testable import VaultAppTestSupport

/// `vault backup` and `vault restore`: a private copy that names the key versions it needs, a
/// restore that checks the keys before it writes anything, and a rotation that keeps the retired
/// version for the backups taken before it.
@Suite struct BackupRestoreCommandTests {
    private func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// A SQLite vault with one merchant (and so keys wrapped under master key version 1).
    private func vaultWithAMerchant() async throws -> VaultProcess {
        let vault = VaultProcess()
        #expect(try await vault.initialize().status == 0)
        #expect(try await vault.run(["merchant", "create", "acme"]).status == 0)
        return vault
    }

    @Test func backupWritesAPrivateCopyAndTheKeyVersionsItNeedsAndNeverOverwrites() async throws {
        let vault = try await vaultWithAMerchant()
        let file = vault.directory.file("backups/first.sqlite")
        try FileManager.default.createDirectory(atPath: vault.directory.file("backups"), withIntermediateDirectories: true)
        let outcome = try await vault.run(["backup", file])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("needs master key version(s) 1"))
        #expect(try mode(file) == 0o600)
        #expect(try mode(file + ".keys.json") == 0o600)
        let manifest = try JSONDecoder().decode(BackupManifest.self, from: Data(contentsOf: URL(fileURLWithPath: file + ".keys.json")))
        #expect(manifest.masterKeyVersionsNeeded == [1])
        #expect(manifest.migration > 0)

        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let again = try await vault.run(["backup", file])
        #expect(again.status == 1)
        #expect(again.stderr.contains("never overwrites"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }

    @Test func backupOnPostgreSQLRefusesAndNamesTheToolsWithoutWritingAFile() async throws {
        let vault = VaultProcess()
        let file = vault.directory.file("pg.sqlite")
        let outcome = try await vault.run(["backup", file], environment: ["VAULT_DATABASE_URL": "postgres://vault@127.0.0.1:1/vault"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("pg_dump"))
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func restoreWithAnotherVaultsKeyExitsNonZeroAndWritesNothing() async throws {
        let vault = try await vaultWithAMerchant()
        let file = vault.directory.file("backup.sqlite")
        #expect(try await vault.run(["backup", file]).status == 0)
        let other = VaultProcess()
        #expect(try await other.run(["keys", "init"]).status == 0)
        let target = other.directory.file("restored")
        let outcome = try await other.run(["restore", file, "--to", target])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("cannot open"))
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func restoreOfAFileThatIsNotABackupExitsNonZeroAndWritesNothing() async throws {
        let vault = try await vaultWithAMerchant()
        let file = vault.directory.file("garbage.sqlite")
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: file))
        let target = vault.directory.file("restored")
        let outcome = try await vault.run(["restore", file, "--to", target])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("not a readable vault database"))
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func aBackupTakenBeforeARotationRestoresWithTheRetiredVersionArchiveAndOnlyWithIt() async throws {
        let vault = try await vaultWithAMerchant()
        let file = vault.directory.file("backup.sqlite")
        #expect(try await vault.run(["backup", file]).status == 0)
        let rotation = try await vault.run(["keys", "rotate"])
        #expect(rotation.status == 0, "\(rotation.stderr)")
        let archive = vault.directory.file("keys/retired.key")
        #expect(try mode(archive) == 0o600)
        #expect(try MasterKeyFile.load(path: archive).versions == [1])
        #expect(try MasterKeyFile.load(path: vault.directory.file("keys/master.key")).versions == [2])

        // The archive moved away: the rotated key file alone cannot open the older backup.
        let away = vault.directory.file("retired.key.offline")
        try FileManager.default.moveItem(atPath: archive, toPath: away)
        let refused = try await vault.run(["restore", file, "--to", vault.directory.file("without-archive")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("version 1"))
        #expect(!FileManager.default.fileExists(atPath: vault.directory.file("without-archive")))

        let target = vault.directory.file("restored")
        let restored = try await vault.run(["restore", file, "--to", target, "--key-archive", away])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try mode(target + "/data/vault.sqlite") == 0o600)
        #expect(try mode(target + "/data") == 0o700)
        #expect(try MasterKeyFile.load(path: target + "/keys/master.key").versions == [1])
        let restoredCopy = ["VAULT_DATABASE": target + "/data/vault.sqlite", "VAULT_KEYS_DIR": target + "/keys"]
        #expect(try await vault.run(["migrate"], environment: restoredCopy).status == 0)
        let audit = try await vault.run(["audit", "verify"], environment: restoredCopy)
        #expect(audit.status == 0, "\(audit.stderr)")
        #expect(try await vault.run(["merchant", "list"], environment: restoredCopy).stdout.contains("acme"))

        let twice = try await vault.run(["restore", file, "--to", target, "--key-archive", away])
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("already exists"))
    }

    /// A verifier never asked: the card is registered without verification.
    private struct NoVerification: CardVerifier {
        func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
            .unavailable(reason: "not used")
        }
    }

    @Test func aBackupTakenBeforeAPassphraseChangeRestoresWithThePassphraseItWasTakenUnderAndOnlyWithIt() async throws {
        let (old, new) = ("ocean lantern ribbon gravel orbit", "harbor violet quarry meadow signal")
        let vault = VaultProcess()
        #expect(try await vault.initialize(environment: ["VAULT_MASTER_PASSPHRASE": old]).status == 0)
        #expect(try await vault.run(["merchant", "create", "acme"], environment: ["VAULT_MASTER_PASSPHRASE": old]).status == 0)
        try await vault.withStore { store in
            let salt = try #require(try PassphraseSaltFile.load(path: vault.directory.file("keys/passphrase.salt")))
            let keyring = Keyring(masterKeys: try salt.ring(passphrase: old), store: store)
            try await keyring.verifyMasterKey()
            let merchant = try #require(try await store.merchant(named: "acme"))
            _ = try await SecureCardService(store: store, keyring: keyring, verifier: NoVerification()).register(
                SecureCardRegistration(
                    merchantReference: "ref-1", source: CardSource(method: "ocr", card: CardInput(number: "4242424242424242", expiryDate: "1230")),
                    verify: false),
                merchant: merchant, actor: "test", now: Date())
        }
        let file = vault.directory.file("backup.sqlite")
        let backup = try await vault.run(["backup", file], environment: ["VAULT_MASTER_PASSPHRASE": old])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(try mode(file + ".passphrase.salt") == 0o600)
        let rotated = try await vault.run(["keys", "rotate"], environment: ["VAULT_MASTER_PASSPHRASE": old, "VAULT_NEW_MASTER_PASSPHRASE": new])
        #expect(rotated.status == 0, "\(rotated.stderr)")

        // The current passphrase, or any other, does not open the older backup: nothing is written.
        let target = vault.directory.file("restored")
        for wrong in [new, "quartz meadow lantern signal ribbon"] {
            let refused = try await vault.run(["restore", file, "--to", target], environment: ["VAULT_MASTER_PASSPHRASE": wrong])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("cannot open"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target))
        }

        let restored = try await vault.run(["restore", file, "--to", target], environment: ["VAULT_MASTER_PASSPHRASE": old])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try mode(target + "/keys/passphrase.salt") == 0o600)
        #expect(try PassphraseSaltFile.load(path: target + "/keys/passphrase.salt")?.kekVersion == 1)
        let restoredCopy = ["VAULT_DATABASE": target + "/data/vault.sqlite", "VAULT_KEYS_DIR": target + "/keys", "VAULT_MASTER_PASSPHRASE": old]
        #expect(try await vault.run(["migrate"], environment: restoredCopy).status == 0)
        // The check opens every card's sealed record: the card reads back.
        let verified = try await vault.run(["audit", "verify", "--json"], environment: restoredCopy)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains(#""secure_cards":1"#), "\(verified.stdout)")
        #expect(try await vault.run(["merchant", "list"], environment: restoredCopy).stdout.contains("acme"))
    }
}
