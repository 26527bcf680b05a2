import ArgumentParser
import Logging
import Scheduler
import Vault

/// `vault migrate`: applies pending database migrations and checks the master key.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Create or upgrade the database and check the master key against it.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let configuration = try global.loadConfiguration()
        VaultLogging.bootstrap(configuration.logging)
        let runtime = try await VaultRuntime.open(configuration: configuration, logger: Logger(label: "vault.migrate"), database: .createIfMissing)
        defer { runtime.close() }
        let applied = try await runtime.store.appliedMigrations()
        print("database \(configuration.database.summary) is at migration \(applied.last ?? 0) (\(applied.count) applied)")
    }
}
