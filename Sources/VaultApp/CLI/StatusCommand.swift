import ArgumentParser
import Foundation
import Logging
import Scheduler

/// `vault status`: the configuration a command run here would use, and whether its database exists.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the configuration file, database, master key source, migration level and log level in use (never a secret).",
        discussion: "Exits 1 when the database does not exist or cannot be opened (after printing the configuration that names it).")

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let configuration = try global.loadConfiguration()
        VaultLogging.bootstrap(configuration.logging)
        var logger = Logger(label: "vault.status")
        logger.logLevel = .error
        let keySource = MasterKeySource(configuration: configuration.keys)
        var description = RuntimeDescription(configuration: configuration, keySource: keySource)
        var failure: (any Error)?
        do {
            let runtime = try await VaultRuntime.open(configuration: configuration, logger: logger)
            defer { runtime.close() }
            description.migration = try await runtime.store.appliedMigrations().last ?? 0
        } catch {
            failure = error
        }
        if json {
            printJSON(description)
        } else {
            description.lines.forEach { print($0) }
        }
        if let failure { throw failure }
    }
}
