import Foundation
import Logging
import Scheduler
import Vault
import VaultPostgres

/// `vault migrate --from sqlite:PATH`: the copy into the configured PostgreSQL database
/// (``SQLiteToPostgres``), then the destination opened as the vault and checked the way `vault
/// audit verify` checks it: every audit chain, and every bound row of the merchants in service.
struct SQLiteMove {
    /// What the move copied and found afterwards.
    struct Outcome: Sendable {
        /// Rows per table, in SQLite and in PostgreSQL.
        var tables: [SQLiteToPostgres.TableCount]
        /// Audit events verified on PostgreSQL (every chain).
        var auditEvents: Int64
        /// Bound rows (cards, API keys, schedules, steps, transactions) checked on PostgreSQL.
        var boundRows: BoundRowReport
    }

    /// The SQLite file given as `sqlite:PATH`.
    let sourcePath: String
    let configuration: VaultConfiguration
    let logger: Logger

    /// The path of `--from`'s `sqlite:PATH`, or nil for another form.
    static func sourcePath(from argument: String) -> String? {
        guard argument.hasPrefix("sqlite:") else { return nil }
        let path = String(argument.dropFirst("sqlite:".count))
        return path.isEmpty ? nil : path
    }

    /// Copies, then verifies through the PostgreSQL engine.
    /// - Throws: ``SQLiteToPostgres/Refused`` (a refusal, or a check that failed afterwards); key,
    ///   SQLite and PostgreSQL errors.
    func run() async throws -> Outcome {
        guard let url = configuration.database.url else {
            throw SQLiteToPostgres.Refused("no destination: set database.url or VAULT_DATABASE_URL to the PostgreSQL database to move into")
        }
        let ring = try MasterKeySource(configuration: configuration.keys).load(configuration: configuration.keys)
        var destination = url
        destination.maximumConnections = configuration.database.maxConnections
        let tables = try await SQLiteToPostgres(sourcePath: sourcePath, destination: destination, ring: ring, logger: logger).run()
        let runtime = try await VaultRuntime.open(configuration: configuration, logger: logger, database: .requireExisting)
        defer { runtime.close() }
        let events: Int64
        switch try await runtime.store.verifyAuditChain() {
        case .intact(let count): events = count
        case .broken(let sequence, let reason):
            throw SQLiteToPostgres.Refused("the audit chain does not verify on PostgreSQL after the copy, at event \(sequence): \(reason)")
        }
        let rows = try await BoundRowCheck(store: runtime.store, keyring: runtime.keyring).run()
        guard rows.isIntact else {
            let altered = rows.tampered.filter { !$0.value.isEmpty }.keys.sorted()
            throw SQLiteToPostgres.Refused("bound rows do not verify on PostgreSQL after the copy: \(altered.joined(separator: ", "))")
        }
        return Outcome(tables: tables, auditEvents: events, boundRows: rows)
    }
}
