import Foundation
import HTTPTypes
import Payments
import Scheduler
import Testing
import Vault
import VaultPostgres
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

@Suite struct ConfigurationTests {
    @Test func theCommittedDefaultFileMatchesTheBuiltInDefaults() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("config/vault.yaml").path
        var loaded = try VaultConfiguration.load(path: path, environment: [:])
        #expect(loaded.file == path)
        loaded.file = nil
        #expect(loaded == VaultConfiguration())
    }

    @Test func environmentVariablesOverrideTheFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "server:\n  port: 9000\n".write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try VaultConfiguration.load(
            path: path,
            environment: ["VAULT_PORT": "9100", "VAULT_HOST": "0.0.0.0", "VAULT_DATABASE": "/tmp/x.sqlite", "VAULT_KEYS_DIR": "/tmp/k",
                          "VAULT_MASTER_KEY": "abc", "VAULT_TIME_ZONE": "Europe/Paris"])
        #expect(loaded.server.port == 9100)
        #expect(loaded.server.host == "0.0.0.0")
        #expect(loaded.database.path == "/tmp/x.sqlite")
        #expect(loaded.keys.directory == "/tmp/k")
        #expect(loaded.keys.masterKeyFromEnvironment == "abc")
        #expect(loaded.defaults.timeZone == "Europe/Paris")
    }

    @Test func runnerAndWebhookSettingsReachTheRunnerAndTheDeliverer() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "runner:\n  inDoubtGraceSeconds: 5\n  concurrency: 64\nwebhooks:\n  keepDays: 7\n".write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try VaultConfiguration.load(path: path, environment: [:])
        let options = ChargeRunner.Options(loaded, asOf: Date(timeIntervalSince1970: 0))
        #expect(options.inDoubtGrace == 5)
        #expect(options.concurrency == 64)
        #expect(WebhookDeliverySettings(loaded.webhooks).keepSettled == 7 * 86_400)
        let defaults = ChargeRunner.Options(VaultConfiguration(), asOf: Date(timeIntervalSince1970: 0))
        #expect(defaults.inDoubtGrace == 120)
        #expect(WebhookDeliverySettings(VaultConfiguration().webhooks).keepSettled == 30 * 86_400)
    }

    @Test func theReceiptRetentionReachesTheDeliverer() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "receipts:\n  retentionDays: 7\n".write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try VaultConfiguration.load(path: path, environment: [:])
        #expect(loaded.receipts.retentionDays == 7)
        #expect(VaultConfiguration().receipts.retentionDays == 90)
        let fixture = try await APIFixture { $0.receipts.retentionDays = loaded.receipts.retentionDays }
        #expect(try fixture.runtime.receiptDeliverer().settings.retention == 7 * 86_400)
    }

    @Test func theFileVAULT_CONFIGNamesIsReadAndANamedFileThatIsMissingIsAnError() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "server:\n  port: 9000\n".write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try VaultConfiguration.load(path: nil, environment: ["VAULT_CONFIG": path])
        #expect(loaded.server.port == 9000)
        #expect(loaded.file == path)
        let missing = directory.file("nowhere.yaml")
        #expect(throws: ConfigurationError.self) { try VaultConfiguration.load(path: nil, environment: ["VAULT_CONFIG": missing]) }
        #expect(throws: ConfigurationError.self) { try VaultConfiguration.load(path: missing, environment: [:]) }
        // --config wins over VAULT_CONFIG.
        #expect(throws: ConfigurationError.self) { try VaultConfiguration.load(path: missing, environment: ["VAULT_CONFIG": path]) }
    }

    @Test func theGatewayTimeoutAndTheUnreachableLimitReachTheGatewaysAndTheRunner() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "runner:\n  gatewayTimeoutSeconds: 7\n  unreachableLimit: 3\n".write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try VaultConfiguration.load(path: path, environment: [:])
        #expect(loaded.runner.gatewayTimeoutSeconds == 7)
        #expect(ChargeRunner.Options(loaded, asOf: Date(timeIntervalSince1970: 0)).unreachableLimit == 3)
        let fixture = try await APIFixture { $0.runner = loaded.runner }
        #expect(fixture.runtime.gateways.timeout == .seconds(7))
        #expect(VaultConfiguration().runner.gatewayTimeoutSeconds == 30)
        #expect(VaultConfiguration().runner.unreachableLimit == 10)
    }

    @Test(arguments: [
        ("server:\n  port: 70000\n", "server.port"),
        ("server:\n  port: abc\n", "server.port"),
        ("server:\n  prot: 80\n", "server.prot"),
        ("unknown: 1\n", "unknown"),
        ("retry:\n  pastDuePolicy: explode\n", "retry.pastDuePolicy"),
        ("retry:\n  delaysDays: [1, x]\n", "retry.delaysDays[1]"),
        ("runner:\n  gatewayTimeoutSeconds: 0\n", "runner.gatewayTimeoutSeconds"),
        ("runner:\n  unreachableLimit: 0\n", "runner.unreachableLimit"),
        ("defaults:\n  timeZone: Mars/Base\n", "defaults.timeZone"),
        ("defaults:\n  gateway: paypal\n", "defaults.gateway"),
        ("logging:\n  level: loud\n", "logging.level"),
        ("server: 5\n", "server"),
        ("runner:\n  inDoubtGraceSeconds: 0\n", "runner.inDoubtGraceSeconds"),
        ("webhooks:\n  keepDays: 0\n", "webhooks.keepDays"),
        ("webhooks:\n  allowPrivateTargets: yes\n", "webhooks.allowPrivateTargets"),
        ("webhooks:\n  allowPrivateTargets: 1\n", "webhooks.allowPrivateTargets"),
        ("server:\n  captureSessionMinutes: 0\n", "server.captureSessionMinutes"),
        ("receipts:\n  retentionDays: 0\n", "receipts.retentionDays"),
        ("receipts:\n  keepDays: 30\n", "receipts.keepDays"),
        ("capture:\n  sessionRetentionHours: 0\n", "capture.sessionRetentionHours"),
        ("capture:\n  sessionRetentionHours: 721\n", "capture.sessionRetentionHours"),
        ("capture:\n  retentionHours: 48\n", "capture.retentionHours"),
    ])
    func badConfigurationNamesTheKey(yaml: String, key: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try VaultConfiguration.load(path: path, environment: [:]) }
        do {
            _ = try VaultConfiguration.load(path: path, environment: [:])
        } catch let error as ConfigurationError {
            #expect(error.key == key)
        }
    }

    @Test func endedCaptureSessionsAreKeptADayUnlessTheFileSaysOtherwise() throws {
        #expect(VaultConfiguration().capture.sessionRetentionHours == 24)
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "capture:\n  sessionRetentionHours: 72\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try VaultConfiguration.load(path: path, environment: [:]).capture.sessionRetentionHours == 72)
    }

    @Test func privateCallbackTargetsAreOffUnlessTheFileTurnsThemOn() throws {
        #expect(VaultConfiguration().webhooks.allowPrivateTargets == false)
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "webhooks:\n  allowPrivateTargets: true\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try VaultConfiguration.load(path: path, environment: [:]).webhooks.allowPrivateTargets == true)
        try "webhooks:\n  allowPrivateTargets: false\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try VaultConfiguration.load(path: path, environment: [:]).webhooks.allowPrivateTargets == false)
    }

    @Test func aBadPortInTheEnvironmentNamesTheVariable() {
        #expect(throws: ConfigurationError(key: "VAULT_PORT", message: "must be a port number 0-65535")) {
            try VaultConfiguration.load(path: nil, environment: ["VAULT_PORT": "http"])
        }
    }

    @Test func anExplicitMissingFileIsAnError() {
        #expect(throws: ConfigurationError.self) { try VaultConfiguration.load(path: "/nonexistent/vault.yaml", environment: [:]) }
    }
}

@Suite struct DatabaseURLConfigurationTests {
    @Test func aDatabaseURLInTheFileSelectsPostgreSQL() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "database:\n  url: postgres://vault:pw@db1:5432,db2:5432/vault?sslmode=require&target_session_attrs=read-write\n  maxConnections: 40\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try VaultConfiguration.load(path: path, environment: [:])
        #expect(loaded.database.url?.hosts.map(\.name) == ["db1", "db2"])
        #expect(loaded.database.url?.tlsMode == .require)
        #expect(loaded.database.maxConnections == 40)
        #expect(loaded.database.summary == "PostgreSQL postgres://vault:***@db1:5432,db2:5432/vault?sslmode=require&target_session_attrs=read-write")
    }

    @Test func theEnvironmentURLOverridesTheFileAndNoURLMeansSQLite() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "database:\n  url: postgres://vault@db1/vault\n".write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try VaultConfiguration.load(path: path, environment: ["VAULT_DATABASE_URL": "postgres://other@db9:6000/billing"])
        #expect(loaded.database.url?.hosts == [.init(name: "db9", port: 6000)])
        #expect(try VaultConfiguration.load(path: nil, environment: [:]).database.url == nil)
        // The SQLite path is shown absolute: a command run from an unexpected directory shows which file it used.
        #expect(VaultConfiguration().database.summary == "SQLite \(FileManager.default.currentDirectoryPath)/data/vault.sqlite")
    }

    @Test func aMalformedDatabaseURLIsRefusedNamingTheKeyWithoutThePassword() throws {
        do {
            _ = try VaultConfiguration.load(path: nil, environment: ["VAULT_DATABASE_URL": "postgres://vault:hunter2@db:5432/vault?sslmode=sometimes"])
            Issue.record("a malformed URL was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "VAULT_DATABASE_URL")
            #expect(!"\(error)".contains("hunter2"))
            #expect("\(error)".contains("sslmode"))
        }
    }
}
