import ArgumentParser
import Foundation
import Logging
import Scheduler
import Vault

/// `vault migrate`: applies pending database migrations and checks the master key; with
/// `--status`, only says where the database stands; with `--from sqlite:PATH`, moves a SQLite vault
/// into the configured PostgreSQL database (``SQLiteMove``).
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Create or upgrade the database and check the master key against it.",
        discussion: """
            --status applies nothing: it prints the applied level and each pending migration by number and name. \
            Exit codes with --status: 0 nothing pending, 3 migrations pending (run `vault migrate` with this build), \
            4 the database holds migrations this build does not know (a newer build migrated it), 1 could not read it. \
            With --from sqlite:PATH, copies that SQLite vault into the configured PostgreSQL database instead.
            """)

    /// `--status`: nothing pending.
    static let upToDate: Int32 = 0
    /// `--status`: this build has migrations the database lacks.
    static let pendingExitCode: Int32 = 3
    /// `--status`: the database was migrated by a newer build.
    static let newerDatabaseExitCode: Int32 = 4

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Show the applied level and the pending migrations without applying them.")
    var status = false

    @Flag(help: "With --status, print one JSON object.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Copy a SQLite vault (sqlite:PATH) into the configured PostgreSQL database, which must be empty.",
            discussion: """
                Refused before anything is written when the SQLite file is not at this build's migration level, the key \
                source cannot open its keys, its audit chain does not verify, or the PostgreSQL database holds any row. \
                Stop every vault process on the SQLite file first. Afterwards the row counts of every table are compared and \
                the audit chains and bound rows are verified through PostgreSQL.
                """, valueName: "sqlite:PATH"))
    var from: String?

    func validate() throws {
        if json && !status { throw ValidationError("--json goes with --status") }
        if let from {
            if status { throw ValidationError("--from and --status do not go together") }
            if SQLiteMove.sourcePath(from: from) == nil { throw ValidationError("--from takes sqlite:PATH, the SQLite vault to copy") }
        }
    }

    func run() async throws {
        let configuration = try global.loadConfiguration()
        VaultLogging.bootstrap(configuration.logging)
        if status {
            try await report(configuration)
            return
        }
        if let from, let path = SQLiteMove.sourcePath(from: from) {
            try await move(from: path, configuration)
            return
        }
        let runtime = try await VaultRuntime.open(configuration: configuration, logger: Logger(label: "vault.migrate"), database: .createIfMissing)
        defer { runtime.close() }
        let applied = try await runtime.store.appliedMigrations()
        print("database \(configuration.database.summary) is at migration \(applied.last ?? 0) (\(applied.count) applied)")
    }

    private func move(from path: String, _ configuration: VaultConfiguration) async throws {
        let outcome = try await SQLiteMove(sourcePath: path, configuration: configuration, logger: Logger(label: "vault.migrate")).run()
        for table in outcome.tables {
            print("\(table.table): \(table.destination) rows copied")
        }
        let rows = outcome.boundRows.checked.keys.sorted().map { "\(outcome.boundRows.checked[$0] ?? 0) \($0)" }
        print("audit chains intact on PostgreSQL: \(outcome.auditEvents) events")
        print("bound rows intact on PostgreSQL: " + (rows.isEmpty ? "none stored" : rows.joined(separator: ", ")))
        print("moved \(path) to \(configuration.database.summary); point every vault process at it and keep the SQLite file as a backup")
    }

    private func report(_ configuration: VaultConfiguration) async throws {
        var logger = Logger(label: "vault.migrate")
        logger.logLevel = .error
        let state = try await MigrationStatus.read(configuration.database, logger: logger)
        let level = state.applied.last ?? 0
        if json {
            let object: [String: Any] = [
                "database": configuration.database.summary, "appliedLevel": level, "applied": state.applied.count,
                "pending": state.pending.map { ["id": $0.id, "name": $0.name] as [String: Any] }, "unknown": state.unknown,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("database \(configuration.database.summary) is at migration \(level) (\(state.applied.count) applied)")
            if state.pending.isEmpty {
                print("no migration pending")
            } else {
                print("\(state.pending.count) pending (`vault migrate` applies them):")
                state.pending.forEach { print("  \($0.id) \($0.name)") }
            }
            if !state.unknown.isEmpty {
                print("the database has migration(s) \(state.unknown.map(String.init).joined(separator: ", ")) unknown to this build: a newer build migrated it")
            }
        }
        if !state.unknown.isEmpty { throw ExitCode(Self.newerDatabaseExitCode) }
        if !state.pending.isEmpty { throw ExitCode(Self.pendingExitCode) }
    }
}
