import Foundation
import Testing
import Vault
@testable import VaultAppTestSupport

/// `vault operator`: the password comes from standard input only and must clear the floor, the
/// authenticator secret is printed once, and list, disable and reset do what they say.
@Suite struct OperatorCommandTests {
    /// Runs `vault` with `input` on its standard input (through a file: the test process's
    /// subprocesses start with `/dev/null` there).
    static func run(_ vault: VaultProcess, _ arguments: [String], input: String) async throws -> VaultProcess.Outcome {
        let file = vault.directory.file("stdin-\(UUID().uuidString)")
        try Data(input.utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("VAULT_") { environment[key] = nil }
        if let postgres = vault.postgres { environment["VAULT_DATABASE_URL"] = postgres.urlText }
        let finished = try await Subprocess(
            executable: "/bin/sh", arguments: ["-c", #"cd "$0" && program="$1" && input="$2" && shift 2 && exec "$program" "$@" < "$input""#, vault.directory.path, VaultProcess.executable.path, file] + arguments,
            environment: environment
        ).finish()
        return VaultProcess.Outcome(status: finished.status, stdout: finished.standardOutput, stderr: finished.standardError)
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func createReadsThePasswordFromStandardInputAndPrintsTheSecretOnce() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        #expect(try await vault.run(["merchant", "create", "acme"]).status == 0)
        let created = try await Self.run(
            vault, ["operator", "create", "ada", "--role", "support", "--merchant", "acme", "--password-stdin", "--json"], input: "blue kettle harbour\n")
        #expect(created.status == 0, "\(created.stderr)")
        let object = try Self.object(created.stdout)
        #expect(Set(object.keys) == ["operator", "totpSecret", "otpauthURI"])
        #expect(object["operator"] as? String == "ada")
        let secret = try #require(object["totpSecret"] as? String)
        #expect(try Encoding.fromBase32(secret).count == 20)
        #expect((object["otpauthURI"] as? String)?.hasPrefix("otpauth://totp/Vault%3Aada?secret=\(secret)&") == true)
        #expect(!created.stdout.contains("kettle") && !created.stderr.contains("kettle"))

        let list = try await vault.run(["operator", "list", "--json"])
        #expect(list.status == 0)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(listed.count == 1)
        #expect(listed.first?["name"] as? String == "ada")
        #expect(listed.first?["role"] as? String == "support")
        #expect((listed.first?["merchants"] as? [String])?.count == 1)
        #expect(listed.first?["status"] as? String == "active")
        #expect(!list.stdout.contains(secret), "the secret is shown once, at creation")
    }

    @Test func aWeakOrMissingPasswordIsRefusedAndCreatesNothing() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        let weak = try await Self.run(vault, ["operator", "create", "ada", "--role", "admin", "--password-stdin"], input: "Password1234\n")
        #expect(weak.status == 1)
        #expect(weak.stderr.contains("common"))
        #expect(!weak.stderr.contains("Password1234"))
        let short = try await Self.run(vault, ["operator", "create", "ada", "--role", "admin", "--password-stdin"], input: "short\n")
        #expect(short.status == 1)
        #expect(try await vault.run(["operator", "create", "ada", "--role", "admin"]).status == 2, "no password on standard input")
        #expect(try await Self.run(vault, ["operator", "create", "ada", "--role", "owner", "--password-stdin"], input: "blue kettle harbour\n").status == 2)
        let unknown = try await Self.run(vault, ["operator", "create", "ada", "--role", "admin", "--merchant", "nobody", "--password-stdin"], input: "blue kettle harbour\n")
        #expect(unknown.status == 1)
        #expect(try await vault.run(["operator", "list", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test func disableAndResetChangeTheAccountAndASecondDisableSaysSo() async throws {
        let vault = try await VaultProcess.onTestEngine()
        #expect(try await vault.initialize().status == 0)
        let created = try await Self.run(vault, ["operator", "create", "ada", "--role", "readonly", "--password-stdin", "--json"], input: "blue kettle harbour\n")
        let first = try #require(try Self.object(created.stdout)["totpSecret"] as? String)
        #expect(try await vault.run(["operator", "disable", "ada"]).status == 0)
        let again = try await vault.run(["operator", "disable", "ada"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("nothing changed"))
        #expect(try await vault.run(["operator", "list"]).stdout.contains("disabled"))
        let reset = try await Self.run(vault, ["operator", "reset", "ada", "--password-stdin", "--json"], input: "a new long passphrase\n")
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(try Self.object(reset.stdout)["totpSecret"] as? String != first)
        #expect(try await vault.run(["operator", "list"]).stdout.contains("active"))
        #expect(try await vault.run(["operator", "disable", "nobody"]).status == 1)
    }
}
