import Foundation
import StorageTestSupport
import Testing
@testable import VaultApp
@testable import VaultAppTestSupport

/// A runner started from the wrong directory, or pointed at a configuration that is not there,
/// stops with a message saying what it looked for, instead of creating an empty database, billing
/// nobody and exiting 0.
@Suite struct StartupLocationTests {
    @Test(arguments: [["charge", "run"], ["merchant", "list"], ["audit", "verify"], ["keys", "status"], ["status"]])
    func aCommandOtherThanMigrateOrServeRefusesAMissingDatabaseAndCreatesNone(arguments: [String]) async throws {
        let vault = try await VaultProcess.onTestEngine(emptyDatabase: true)
        #expect(try await vault.run(["keys", "init"]).status == 0)
        let refused = try await vault.run(arguments)
        #expect(refused.status == 1, "\(arguments): \(refused.stderr)")
        #expect(refused.stderr.contains("no database at "), "\(refused.stderr)")
        #expect(refused.stderr.contains("run `vault migrate` first"))
        if vault.postgres == nil {
            #expect(refused.stderr.contains("no database at \(vault.directory.file("data/vault.sqlite"))"))
            #expect(!FileManager.default.fileExists(atPath: vault.directory.file("data/vault.sqlite")))
        } else {
            #expect(refused.stderr.contains("no database at PostgreSQL "))
        }
        // Once migrated, the same command runs.
        #expect(try await vault.run(["migrate"]).status == 0)
        let accepted = try await vault.run(arguments)
        #expect(accepted.status == 0, "\(arguments): \(accepted.stderr)")
    }

    @Test func aConfigurationFileNamedByVAULT_CONFIGOrConfigThatDoesNotExistIsAnError() async throws {
        let vault = VaultProcess()
        let missing = vault.directory.file("etc/vault.yaml")
        let fromEnvironment = try await vault.run(["keys", "init"], environment: ["VAULT_CONFIG": missing])
        #expect(fromEnvironment.status == 1)
        #expect(fromEnvironment.stderr.contains("no such configuration file (named by VAULT_CONFIG"), "\(fromEnvironment.stderr)")
        let fromOption = try await vault.run(["status", "--config", missing])
        #expect(fromOption.status == 1)
        #expect(fromOption.stderr.contains("no such configuration file (named by --config"), "\(fromOption.stderr)")
        #expect(!FileManager.default.fileExists(atPath: vault.directory.file("keys")))
    }

    @Test func theFileVAULT_CONFIGNamesIsUsedAndShownByStatus() async throws {
        let vault = VaultProcess()
        let config = vault.directory.file("etc/vault.yaml")
        try FileManager.default.createDirectory(atPath: vault.directory.file("etc"), withIntermediateDirectories: true)
        let database = vault.directory.file("billing/vault.sqlite")
        try "database:\n  path: \(database)\nkeys:\n  directory: \(vault.directory.file("secrets"))\nlogging:\n  level: notice\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let environment = ["VAULT_CONFIG": config]
        let created = try await vault.run(["keys", "init"], environment: environment)
        #expect(created.stdout.contains("created key file \(vault.directory.file("secrets/master.key")) (configuration: \(config))"), "\(created.stdout)")
        #expect(try await vault.run(["migrate"], environment: environment).status == 0)
        #expect(FileManager.default.fileExists(atPath: database))
        let status = try await vault.run(["status", "--json"], environment: environment)
        #expect(status.status == 0, "\(status.stderr)")
        let shown = try JSONDecoder().decode(RuntimeDescription.self, from: Data(status.stdout.utf8))
        #expect(shown.configuration == config)
        #expect(shown.database == "SQLite \(database)")
        #expect(shown.keySource == "key file \(vault.directory.file("secrets/master.key"))")
        #expect(shown.migration > 0)
        #expect(shown.logLevel == "notice")
    }

    @Test func withoutAConfigurationFileTheStartLineAndStatusSayBuiltInDefaultsAndNoSecret() async throws {
        let vault = VaultProcess()
        let masterKey = "c2VjcmV0LW1hc3Rlci1rZXktMzItYnl0ZXMtbG9uZyE="
        let environment = ["VAULT_MASTER_KEY": masterKey]
        #expect(try await vault.run(["migrate"], environment: environment).status == 0)
        let run = try await vault.run(["charge", "run"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let start = try #require(run.stderr.split(separator: "\n").first { $0.contains("\"vault started\"") })
        #expect(start.contains("built-in defaults"))
        #expect(start.contains("SQLite \(vault.directory.file("data/vault.sqlite"))"))
        #expect(start.contains("environment variable VAULT_MASTER_KEY"))
        #expect(!run.stderr.contains(masterKey))
        let status = try await vault.run(["status"], environment: environment)
        #expect(status.stdout.contains("configuration:  built-in defaults"), "\(status.stdout)")
        #expect(!status.stdout.contains(masterKey))
    }
}
