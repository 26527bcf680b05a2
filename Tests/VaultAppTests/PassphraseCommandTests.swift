import Foundation
import Testing
import Vault
@testable import VaultAppTestSupport

/// A master passphrase below the floor starts no new vault; its salt file states its Argon2id cost;
/// `keys rotate` changes it, rewrapping every key, and refuses a wrong old one changing nothing.
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

    private static let old = "ocean lantern ribbon gravel orbit"
    private static let new = "harbor violet quarry meadow signal"

    /// A vault on the test engine made with the passphrase ``old``, with one merchant (three wrapped keys).
    private static func passphraseVault() async throws -> VaultProcess {
        let vault = try await VaultProcess.onTestEngine()
        let environment = ["VAULT_MASTER_PASSPHRASE": old]
        #expect(try await vault.run(["keys", "init"], environment: environment).status == 0)
        #expect(try await vault.run(["migrate"], environment: environment).status == 0)
        let created = try await vault.run(["merchant", "create", "acme"], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        return vault
    }

    private static func opens(_ vault: VaultProcess, with passphrase: String) async throws -> Bool {
        let listed = try await vault.run(["merchant", "list"], environment: ["VAULT_MASTER_PASSPHRASE": passphrase])
        return listed.status == 0 && listed.stdout.contains("acme")
    }

    private static func contents(_ vault: VaultProcess, _ name: String) -> Data? {
        FileManager.default.contents(atPath: vault.directory.file("keys/" + name))
    }

    @Test func theSaltFileStatesItsArgon2idCostAndAVaultWithTheBareSaltOfAnEarlierBuildStillOpens() async throws {
        let vault = try await Self.passphraseVault()
        let text = String(decoding: try #require(Self.contents(vault, "passphrase.salt")), as: UTF8.self)
        #expect(text.hasPrefix("argon2id v=19 m=262144 t=3 kek=1 salt="), "\(text)")
        // The format of earlier builds: the 16 salt bytes alone.
        let salt = try Encoding.fromBase64(text.components(separatedBy: "salt=")[1].trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(salt.count == 16)
        try Data(salt).write(to: URL(fileURLWithPath: vault.directory.file("keys/passphrase.salt")))
        #expect(try await Self.opens(vault, with: Self.old))
    }

    @Test func aSaltFileWhoseCostWasLoweredIsRefusedNamingTheFile() async throws {
        let vault = try await Self.passphraseVault()
        let path = vault.directory.file("keys/passphrase.salt")
        let text = String(decoding: try #require(Self.contents(vault, "passphrase.salt")), as: UTF8.self)
        try Data(text.replacingOccurrences(of: "m=262144 t=3", with: "m=8 t=1").utf8).write(to: URL(fileURLWithPath: path))
        let refused = try await vault.run(["merchant", "list"], environment: ["VAULT_MASTER_PASSPHRASE": Self.old])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("passphrase.salt") && refused.stderr.contains("below the floor"), "\(refused.stderr)")
    }

    @Test func rotationChangesThePassphraseRewrappingEveryKeyUnderANewSalt() async throws {
        let vault = try await Self.passphraseVault()
        let before = try #require(Self.contents(vault, "passphrase.salt"))
        let rotated = try await vault.run(
            ["keys", "rotate"], environment: ["VAULT_MASTER_PASSPHRASE": Self.old, "VAULT_NEW_MASTER_PASSPHRASE": Self.new])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stdout.contains("rewrapped 3 merchant keys under master key version 2"), "\(rotated.stdout)")
        #expect(!rotated.stdout.contains(Self.new) && !rotated.stderr.contains(Self.new) && !rotated.stdout.contains(Self.old))
        let after = String(decoding: try #require(Self.contents(vault, "passphrase.salt")), as: UTF8.self)
        #expect(after.hasPrefix("argon2id v=19 m=262144 t=3 kek=2 salt="))
        #expect(Data(after.utf8) != before)
        #expect(Self.contents(vault, "passphrase.salt.v1") == before, "the old salt is kept for backups taken before the change")
        #expect(Self.contents(vault, "passphrase.salt.next") == nil)
        #expect(try await Self.opens(vault, with: Self.new))
        #expect(try await !Self.opens(vault, with: Self.old))
        let status = try await vault.run(["keys", "status"], environment: ["VAULT_MASTER_PASSPHRASE": Self.new])
        #expect(status.stdout.contains("version 1: retired") && status.stdout.contains("version 2: active, wraps 3 merchant keys"), "\(status.stdout)")
    }

    @Test func theNewPassphraseMayComeFromStandardInput() async throws {
        let vault = try await Self.passphraseVault()
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("VAULT_") { environment[key] = nil }
        if let postgres = vault.postgres { environment["VAULT_DATABASE_URL"] = postgres.urlText }
        environment["VAULT_MASTER_PASSPHRASE"] = Self.old
        environment["VAULT_METRICS_PORT"] = "0"
        let arguments = ["-c", #"printf '%s\n' "$1" | "$0" keys rotate --new-passphrase-stdin"#, VaultProcess.executable.path, Self.new]
        let piped = try await Subprocess(executable: "/bin/sh", arguments: arguments, environment: environment, directory: vault.directory.path)
            .finish()
        #expect(piped.status == 0, "\(piped.standardError)")
        #expect(try await Self.opens(vault, with: Self.new))
    }

    @Test func aWrongOldPassphraseOrAWeakOrMissingNewOneChangesNothing() async throws {
        let vault = try await Self.passphraseVault()
        let before = try #require(Self.contents(vault, "passphrase.salt"))
        let attempts: [([String: String], String)] = [
            (["VAULT_MASTER_PASSPHRASE": "copper thistle beacon walnut ember", "VAULT_NEW_MASTER_PASSPHRASE": Self.new], "is wrong"),
            (["VAULT_MASTER_PASSPHRASE": Self.old, "VAULT_NEW_MASTER_PASSPHRASE": "Vault2024!Vault2024!"], "new passphrase is refused"),
            (["VAULT_MASTER_PASSPHRASE": Self.old, "VAULT_NEW_MASTER_PASSPHRASE": Self.old], "is the old one"),
            (["VAULT_MASTER_PASSPHRASE": Self.old], "VAULT_NEW_MASTER_PASSPHRASE"),
        ]
        for (environment, reason) in attempts {
            let refused = try await vault.run(["keys", "rotate"], environment: environment)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains(reason), "\(refused.stderr)")
            #expect(!refused.stdout.contains("rewrapped"))
            #expect(Self.contents(vault, "passphrase.salt") == before)
            #expect(Self.contents(vault, "passphrase.salt.next") == nil)
        }
        #expect(try await Self.opens(vault, with: Self.old))
        let status = try await vault.run(["keys", "status"], environment: ["VAULT_MASTER_PASSPHRASE": Self.old])
        #expect(status.stdout.contains("version 1: active, wraps 3 merchant keys") && !status.stdout.contains("version 2"), "\(status.stdout)")
    }

    /// A crash after the rewrap committed but before the new salt file was renamed over the old one
    /// leaves both salt files: the new passphrase opens the vault, the old one does not, and the
    /// same command run again finishes the change.
    @Test func aCrashBetweenTheRewrapAndTheSaltFileLeavesAVaultTheNewPassphraseOpens() async throws {
        let vault = try await Self.passphraseVault()
        let rotation = ["VAULT_MASTER_PASSPHRASE": Self.old, "VAULT_NEW_MASTER_PASSPHRASE": Self.new]
        #expect(try await vault.run(["keys", "rotate"], environment: rotation).status == 0)
        // The files as the crash left them: the new salt still pending, the old one in place.
        let keys = vault.directory.file("keys/")
        try FileManager.default.moveItem(atPath: keys + "passphrase.salt", toPath: keys + "passphrase.salt.next")
        try FileManager.default.moveItem(atPath: keys + "passphrase.salt.v1", toPath: keys + "passphrase.salt")
        #expect(try await Self.opens(vault, with: Self.new))
        #expect(try await !Self.opens(vault, with: Self.old))
        let finished = try await vault.run(["keys", "rotate"], environment: rotation)
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(Self.contents(vault, "passphrase.salt.next") == nil)
        let text = String(decoding: try #require(Self.contents(vault, "passphrase.salt")), as: UTF8.self)
        #expect(text.contains(" kek=2 "))
        #expect(try await Self.opens(vault, with: Self.new))
    }
}
