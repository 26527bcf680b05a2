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

/// Runs the real `vault` executable in a temporary working directory.
struct VaultProcess {
    static var executable: URL {
        let testBundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = testBundle.appendingPathComponent("vault")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/vault")
    }

    let directory = TemporaryDirectory()
    /// The PostgreSQL database its processes use (`VAULT_DATABASE_URL`), or nil: the SQLite file
    /// `data/vault.sqlite` of the directory.
    let postgres: FixtureDatabase?

    /// A vault directory on SQLite whatever the pass, for tests of the command line itself (usage,
    /// key files) that never reach the database or test what the SQLite file looks like.
    init() {
        postgres = nil
    }

    private init(postgres: FixtureDatabase?) {
        self.postgres = postgres
    }

    /// A vault directory whose processes use the database of the pass: a fresh PostgreSQL
    /// database in the PostgreSQL pass (already migrated unless `emptyDatabase`), the directory's
    /// SQLite file otherwise (created by `vault migrate`).
    static func onTestEngine(emptyDatabase: Bool = false) async throws -> VaultProcess {
        VaultProcess(postgres: try await FixtureDatabase.forCurrentEngine(empty: emptyDatabase))
    }

    /// The configuration's database: the directory's SQLite file, or the PostgreSQL database.
    var database: VaultConfiguration.Database {
        var database = VaultConfiguration.Database()
        database.path = directory.file("data/vault.sqlite")
        database.url = postgres?.url
        database.maxConnections = 4
        return database
    }

    /// Runs `body` with a store over the processes' database (opened and closed around it).
    @discardableResult
    func withStore<T>(_ body: (any VaultStorage) async throws -> T) async throws -> T {
        let store: any VaultStorage =
            if let postgres { try await PostgresStore(url: postgres.url, logger: PostgresTestDatabase.logger) } else {
                try SQLiteStore(path: directory.file("data/vault.sqlite"))
            }
        do {
            let result = try await body(store)
            store.close()
            return result
        } catch {
            store.close()
            throw error
        }
    }

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    func start(_ arguments: [String], environment: [String: String] = [:], unreadStandardError: Bool = false) throws -> Subprocess {
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("VAULT_") { env[key] = nil }
        if let postgres { env["VAULT_DATABASE_URL"] = postgres.urlText }
        // Tests run in parallel: each server's metrics listener takes a free port, not the default.
        env["VAULT_METRICS_PORT"] = "0"
        env.merge(environment) { _, new in new }
        return try Subprocess(
            executable: Self.executable.path, arguments: arguments, environment: env, directory: directory.path,
            unreadStandardError: unreadStandardError)
    }

    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Outcome {
        let finished = try await start(arguments, environment: environment).finish()
        return Outcome(status: finished.status, stdout: finished.standardOutput, stderr: finished.standardError)
    }

    /// `vault keys init`, then `vault migrate`: what an operator runs before any other command
    /// (only `migrate` and `serve` create the database). Returns the first that failed, or `migrate`.
    @discardableResult
    func initialize(environment: [String: String] = [:]) async throws -> Outcome {
        let keys = try await run(["keys", "init"], environment: environment)
        guard keys.status == 0 else { return keys }
        return try await run(["migrate"], environment: environment)
    }
}

extension VaultProcess {
    /// Writes the working directory's `config/vault.yaml` with `webhooks.allowPrivateTargets: true`,
    /// so callbacks may go to the test endpoint on 127.0.0.1.
    func allowPrivateCallbackTargets() throws {
        try FileManager.default.createDirectory(atPath: directory.file("config"), withIntermediateDirectories: true)
        try Data("webhooks:\n  allowPrivateTargets: true\n".utf8).write(to: URL(fileURLWithPath: directory.file("config/vault.yaml")))
    }
}
