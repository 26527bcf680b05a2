import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import HTTPTypes
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultPostgres
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

@Suite struct CommandLineTests {
    @Test func keysInitCreatesAPrivateKeyFileOnceAndThenChangesNothing() async throws {
        let vault = VaultProcess()
        let first = try await vault.run(["keys", "init"])
        #expect(first.status == 0)
        #expect(first.stdout.contains("created"))
        let path = vault.directory.file("keys/master.key")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let second = try await vault.run(["keys", "init"])
        #expect(second.status == 0)
        #expect(second.stdout.contains("nothing changed"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func merchantCreateWithJSONPrintsOneObject() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        let created = try await vault.run(["merchant", "create", "acme", "--role", "admin", "--gateway", "sandbox", "--time-zone", "Europe/Paris", "--json"])
        #expect(created.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any]
        #expect((object?["merchantId"] as? String)?.hasPrefix("mer_") == true)
        #expect((object?["apiKey"] as? String)?.hasPrefix("vk_") == true)
        #expect(object?.count == 2)
        let key = try await vault.run(["merchant", "key", "acme", "--role", "readonly", "--json"])
        #expect(key.status == 0)
        let duplicate = try await vault.run(["merchant", "create", "acme"])
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("already exists"))
    }

    @Test(arguments: [["bogus"], ["merchant", "create"], ["merchant", "create", "x", "--role", "superuser"], ["charge", "--nope"]])
    func usageErrorsExitWith2(arguments: [String]) async throws {
        let vault = VaultProcess()
        #expect(try await vault.run(arguments).status == 2)
    }

    @Test func helpExitsWith0() async throws {
        let vault = VaultProcess()
        let help = try await vault.run(["merchant", "create", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--gateway-credential"))
    }

    @Test func theServerRefusesAKeyFileReadableByOthersAndTouchesNothing() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.run(["keys", "init"])
        let path = vault.directory.file("keys/master.key")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let refused = try await vault.run(["serve"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("0644"))
        #expect(!FileManager.default.fileExists(atPath: vault.directory.file("data/vault.sqlite")))
    }

    @Test func theServerRefusesAMissingKey() async throws {
        let vault = VaultProcess()
        let refused = try await vault.run(["serve"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("master.key"))
    }

    @Test func theServerRefusesTheWrongKey() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        #expect(try await vault.run(["merchant", "create", "acme"]).status == 0)
        let wrong = Encoding.base64(RandomBytes.make(32))
        let refused = try await vault.run(["serve"], environment: ["VAULT_MASTER_KEY": wrong])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("wrong"))
        #expect(!refused.stderr.contains(wrong))
    }

    @Test func keyRotationKeepsMerchantsUsable() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        try await vault.run(["merchant", "create", "acme", "--gateway", "nmi", "--gateway-credential", "security_key=abc"])
        let rotated = try await vault.run(["keys", "rotate"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stdout.contains("rewrapped 3"))
        let status = try await vault.run(["keys", "status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(object?["currentVersion"] as? Int == 2)
        let file = try String(contentsOfFile: vault.directory.file("keys/master.key"), encoding: .utf8)
        #expect(!file.split(separator: "\n").contains { $0.hasPrefix("1 ") })
        #expect(try await vault.run(["keys", "rotate", "--data"]).status == 0)
        #expect(try await vault.run(["merchant", "update", "acme", "--time-zone", "Asia/Tokyo"]).status == 0)
        #expect(try await vault.run(["audit", "verify"]).status == 0)
    }

    @Test func auditVerifyFailsOnAnEditedEvent() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        try await vault.run(["merchant", "create", "acme"])
        #expect(try await vault.run(["audit", "verify"]).status == 0)
        try await vault.withStore { store in try await TestSQL(store).run("UPDATE audit_events SET action = 'nothing' WHERE seq = 2") }
        let broken = try await vault.run(["audit", "verify"])
        #expect(broken.status == 1)
        // Event 2 is the merchant's creation: the second of SQLite's one chain; on PostgreSQL (one
        // chain per merchant, events numbered within it) the first of the merchant's chain.
        #expect(broken.stdout.contains(vault.postgres == nil ? "BROKEN at event 2" : "BROKEN at event 1: chain mer_"), "\(broken.stdout)")
    }

    @Test(.sqliteOnly("the SQLite file's and directory's permissions"))
    func theServerRefusesADatabaseDirectoryOrFileOpenToOthersAndSaysHowToFixIt() async throws {
        let vault = VaultProcess()
        try await vault.run(["keys", "init"])
        #expect(try await vault.run(["migrate"]).status == 0)
        let data = vault.directory.file("data")
        #expect(DatabaseFiles.mode(of: data) == 0o700)
        #expect(DatabaseFiles.mode(of: data + "/vault.sqlite") == 0o600)
        chmod(data, 0o755)
        let refusedDirectory = try await vault.run(["serve"])
        #expect(refusedDirectory.status == 1)
        #expect(refusedDirectory.stderr.contains("chmod 700"))
        chmod(data, 0o700)
        chmod(data + "/vault.sqlite", 0o644)
        let refusedFile = try await vault.run(["charge", "run"])
        #expect(refusedFile.status == 1)
        #expect(refusedFile.stderr.contains("chmod 600"))
        chmod(data + "/vault.sqlite", 0o600)
        #expect(try await vault.run(["audit", "verify"]).status == 0)
    }

    /// A log collector that stops reading (here a pipe nobody reads, full after 64 KiB of access
    /// log) does not keep a stopped server from exiting: its exit's log write gives up.
    @Test func serveExitsOnSIGTERMWhenNobodyReadsItsStandardError() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        let process = try vault.start(["serve"], environment: ["VAULT_PORT": "0"], unreadStandardError: true)
        defer {
            // Only while not yet reaped: a reaped pid may already belong to another process.
            process.killAndReap()
        }
        let port = try #require(try await ServerProcess.waitForPort(process))
        // About 300 bytes of access log each: well past the pipe's 64 KiB.
        for _ in 0..<600 {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"), timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 16)
        }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!process.isRunning, "vault serve still running 60 s after SIGTERM")
    }

    @Test func serveRunsWithoutCoreDumpsAnswersAndExitsCleanlyOnSIGTERM() async throws {
        let vault = try await VaultProcess.onTestEngine()
        try await vault.initialize()
        let process = try vault.start(["serve", "--dev-merchant", "dev"], environment: ["VAULT_PORT": "0"])
        let port = try await ServerProcess.waitForPort(process)
        let bound = try #require(port)
        #expect(process.standardOutput.text.contains("API key (admin, shown once): vk_"))
        let limits = try String(contentsOfFile: "/proc/\(process.pid)/limits", encoding: .utf8)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
        #expect(core?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"])
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(bound)/healthz"), timeout: .seconds(10))
        #expect(response.status.code == 200)
        let body = try await response.body.collect(upTo: 1 << 16)
        #expect(String(buffer: body).contains("ok"))
        process.terminate()
        #expect(await process.exited() == 0)
        #expect(await process.exitedNormally)
    }
}
