import Foundation
import Testing

/// A master passphrase below the floor starts no new vault, and `keys rotate` does not pretend to
/// rotate a passphrase-derived key.
@Suite struct PassphraseCommandTests {
    @Test(arguments: ["vault2024", "Vault2024!Vault2024!", "aaaaaaaaaaaaaaaaaaaaaaaa"])
    func keysInitRefusesAWeakPassphraseAndCreatesNothing(passphrase: String) async throws {
        let vault = VaultProcess()
        let refused = try await vault.run(["keys", "init"], environment: ["VAULT_MASTER_PASSPHRASE": passphrase])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("master passphrase"), "\(refused.stderr)")
        #expect(!refused.stderr.contains(passphrase) && !refused.stdout.contains(passphrase), "the passphrase is never echoed")
        #expect(!FileManager.default.fileExists(atPath: vault.directory.file("keys/passphrase.salt")))
    }

    @Test func aStrongPassphraseStartsAVaultAndRotationSaysItCannotRotateIt() async throws {
        let vault = VaultProcess()
        let environment = ["VAULT_MASTER_PASSPHRASE": "ocean lantern ribbon gravel orbit"]
        let created = try await vault.run(["keys", "init"], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(FileManager.default.fileExists(atPath: vault.directory.file("keys/passphrase.salt")))
        #expect(try await vault.run(["migrate"], environment: environment).status == 0)
        let rotation = try await vault.run(["keys", "rotate"], environment: environment)
        #expect(rotation.status == 1)
        #expect(rotation.stderr.contains("cannot be rotated in place"), "\(rotation.stderr)")
        #expect(!rotation.stdout.contains("rewrapped"))
    }
}
