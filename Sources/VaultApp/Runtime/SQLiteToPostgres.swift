import Foundation
import Logging
import PostgresNIO
import Scheduler
import Vault
import VaultPostgres
import VaultSQLite

/// Copies a SQLite vault into an empty, migrated PostgreSQL database (`vault migrate --from
/// sqlite:PATH`), rows as stored.
///
/// Nothing is decrypted or re-sealed: sealed columns, row MACs, wrapped keys and the audit chain's
/// links are copied byte for byte, so they stay valid under the same master key. Every check comes
/// before the first write to the destination: the source is at this build's migration level, the
/// key source opens every key it holds, its audit chain verifies; the destination is at this
/// build's level and holds no row. Tables are copied in foreign-key order, one transaction per
/// table, read from SQLite a page at a time (memory stays flat). SQLite's one audit chain becomes
/// the PostgreSQL chain ``PostgresAuditChains/importedFromSQLite`` with the same links.
///
/// The SQLite file must not be written while it is copied (stop every `vault` process on it): the
/// counts checked afterwards would differ.
struct SQLiteToPostgres {
    /// Why the move was refused before anything was written, or failed its checks afterwards.
    struct Refused: Error, CustomStringConvertible, Equatable {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// One table's rows in the source and, after the copy, in the destination.
    struct TableCount: Sendable, Equatable {
        var table: String
        /// Rows the copy read from SQLite (rows left out on purpose are not counted).
        var source: Int
        /// Rows in the PostgreSQL table afterwards.
        var destination: Int
    }

    /// The SQLite file.
    let sourcePath: String
    /// The destination database.
    let destination: PostgresURL
    /// The master key versions of the key source.
    let ring: MasterKeyRing
    let logger: Logger
    /// Rows per INSERT statement.
    var batchSize = 500

    /// `meta` rows that are not copied: SQLite's head record of its one audit chain, replaced by the
    /// imported chain's head in `audit_chains`.
    static let sqliteOnlyMeta: Set<String> = ["audit_head"]

    /// Checks both sides, copies every table, and compares the counts table by table.
    /// - Throws: ``Refused`` (nothing written when thrown by a check); SQLite and PostgreSQL errors.
    func run() async throws -> [TableCount] {
        let source = try await openSource()
        defer { source.close() }
        let (auditEvents, auditHead) = try await checkSource(source)
        let store = try await openDestination()
        defer { store.close() }
        // Unwraps the copied audit key for the imported chain's head record.
        _ = Keyring(masterKeys: ring, store: store)
        let plan = try await TablePlan.make(source: source, destination: store)
        try await refuseRows(in: store, tables: plan.destinationTables)
        var counts: [TableCount] = []
        for table in plan.order {
            let copied = try await copy(table, plan: plan, from: source, to: store, auditHead: auditEvents > 0 ? auditHead : nil)
            let stored = try await count(table.name, in: store)
            logger.info("copied table", metadata: ["table": "\(table.name)", "rows": "\(copied)"])
            counts.append(TableCount(table: table.name, source: copied, destination: stored))
        }
        let sourceTotals = try await sourceCounts(source, tables: plan.order.map(\.name))
        for (index, entry) in counts.enumerated() where entry.source != sourceTotals[entry.table] {
            counts[index].source = sourceTotals[entry.table] ?? 0
        }
        let differing = counts.filter { $0.source != $0.destination }
        guard differing.isEmpty else {
            throw Refused(
                "row counts differ after the copy (was the SQLite file written meanwhile?): "
                    + differing.map { "\($0.table) \($0.source) in SQLite, \($0.destination) in PostgreSQL" }.joined(separator: "; "))
        }
        return counts
    }

    // MARK: - Source

    /// The SQLite store, after checking it exists, is private and is at this build's migration
    /// level (read without applying any, so an older file is refused unchanged).
    private func openSource() async throws -> SQLiteStore {
        guard FileManager.default.fileExists(atPath: sourcePath) else { throw Refused("no SQLite database at \(sourcePath)") }
        try DatabaseFiles.check(path: sourcePath)
        let applied = try SQLiteBackup.appliedMigrations(database: sourcePath)
        let known = Schema.migrations.map(\.id)
        guard applied == known else {
            let level = applied.last ?? 0
            throw Refused(
                "the SQLite database is at migration \(level), this build's is \(known.last ?? 0): "
                    + (level < (known.last ?? 0)
                        ? "run `vault migrate` on it with this build first"
                        : "move it with the build that migrated it"))
        }
        return try SQLiteStore(path: sourcePath)
    }

    /// Checks that the key source opens every master key version, every merchant key and the audit
    /// key of the source, that its audit chain verifies, and that the chain is keyed from its first
    /// event; returns the chain's length and last link.
    private func checkSource(_ source: SQLiteStore) async throws -> (events: Int64, head: [UInt8]) {
        let keyring = Keyring(masterKeys: ring, store: source)
        do {
            try Keyring.check(ring, opens: try await source.kekVersions())
        } catch {
            throw Refused("the key source cannot open the SQLite database's master key versions: \(error)")
        }
        let keys = try await source.database.read { connection in
            try connection.query("SELECT merchant_id, purpose, version FROM merchant_keys WHERE wrapped_key IS NOT NULL ORDER BY merchant_id")
                .map { (try $0.string("merchant_id"), try $0.string("purpose"), try $0.int("version")) }
        }
        for (merchantID, purpose, version) in keys {
            guard let purpose = KeyPurpose(rawValue: purpose) else { throw Refused("merchant \(merchantID) has a key of unknown purpose \(purpose)") }
            do {
                _ = try await keyring.key(merchantID: merchantID, purpose: purpose, version: version)
            } catch {
                throw Refused("the key source cannot open the \(purpose.rawValue) key version \(version) of merchant \(merchantID): \(error)")
            }
        }
        let keyedFrom = try await source.database.read { connection in
            try connection.queryOne("SELECT value FROM meta WHERE key = 'audit_keyed_from'")
        }
        guard keyedFrom == nil else {
            throw Refused(
                "the SQLite audit chain begins with events written before it was keyed; "
                    + "PostgreSQL verifies keyed chains only, so such a vault cannot be moved")
        }
        let events: Int64
        do {
            switch try await source.verifyAuditChain() {
            case .intact(let count): events = count
            case .broken(let sequence, let reason): throw Refused("the SQLite audit chain is broken at event \(sequence): \(reason)")
            }
        } catch let refused as Refused {
            throw refused
        } catch {
            throw Refused("the SQLite audit chain cannot be verified with this key source: \(error)")
        }
        let head = try await source.database.read { connection in
            try connection.queryOne("SELECT hash FROM audit_events ORDER BY seq DESC LIMIT 1")?.blob("hash") ?? []
        }
        return (events, head)
    }

    private func sourceCounts(_ source: SQLiteStore, tables: [String]) async throws -> [String: Int] {
        let skipped = Array(Self.sqliteOnlyMeta)
        return try await source.database.read { connection in
            var counts: [String: Int] = [:]
            for table in tables {
                var sql: SQLiteQuery = "SELECT count(*) AS n FROM \(unescaped: Self.quoted(table))"
                if table == "meta" { sql += " WHERE key NOT IN (\(list: skipped))" }
                counts[table] = try connection.queryOne(sql)?.int("n") ?? 0
            }
            return counts
        }
    }

    // MARK: - Destination

    /// The PostgreSQL store, migrated. A database never migrated is migrated here; one at another
    /// level is refused before any migration runs on it.
    private func openDestination() async throws -> PostgresStore {
        let probe = try await PostgresStore(url: destination, logger: logger, migrations: [])
        let applied = probe.migrationsAtStart
        probe.close()
        let known = PostgresSchema.migrations.map(\.id)
        guard applied.isEmpty || applied == known else {
            throw Refused(
                "the PostgreSQL database is at migration \(applied.last ?? 0), this build's is \(known.last ?? 0): move into a new, empty database")
        }
        return try await PostgresStore(url: destination, logger: logger)
    }

    /// Refuses a destination holding any row (a vault already in use, or a half-finished move).
    private func refuseRows(in store: PostgresStore, tables: [String]) async throws {
        var occupied: [String] = []
        for table in tables where table != "schema_migrations" {
            let found = try await store.read { connection in
                try await connection.row(PostgresQuery(unsafeSQL: "SELECT 1 AS one FROM \(Self.quoted(table)) LIMIT 1"), logger: logger)
            }
            if found != nil { occupied.append(table) }
        }
        guard occupied.isEmpty else {
            throw Refused(
                "the PostgreSQL database is not empty (rows in \(occupied.joined(separator: ", "))): move into a new, empty database")
        }
    }

    private func count(_ table: String, in store: PostgresStore) async throws -> Int {
        try await store.read { connection in
            try await connection.row(PostgresQuery(unsafeSQL: "SELECT count(*) AS n FROM \(Self.quoted(table))"), logger: logger)?.int("n") ?? 0
        }
    }

    // MARK: - Copy

    /// Copies one table in one transaction, a page at a time; the rows copied.
    private func copy(
        _ table: TablePlan.Table, plan: TablePlan, from source: SQLiteStore, to store: PostgresStore, auditHead: [UInt8]?
    ) async throws -> Int {
        let batchSize = batchSize
        let skippedMeta = Array(Self.sqliteOnlyMeta)
        return try await store.write { write in
            if table.name == "audit_events", let auditHead {
                let last = try await source.database.read { connection in
                    try connection.queryOne("SELECT max(seq) AS n FROM audit_events")?.int64("n") ?? 0
                }
                try await write.recordImportedAuditChainHead(sequence: last, link: auditHead)
            }
            var copied = 0
            var page = table.firstPage
            while true {
                let select = table.pageQuery(after: page, limit: batchSize, skippingMeta: skippedMeta)
                let rows = try await source.database.read { connection in try connection.query(select) }
                guard !rows.isEmpty else { break }
                try await write.run(try table.insert(rows))
                copied += rows.count
                page = table.nextPage(after: page, last: rows[rows.count - 1], count: rows.count)
                if rows.count < batchSize { break }
            }
            for column in table.identityColumns where copied > 0 {
                try await write.run(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT setval(pg_get_serial_sequence('\(Self.quoted(table.name))', '\(column)'), \
                            (SELECT max(\(Self.quoted(column))) FROM \(Self.quoted(table.name))))
                            """))
            }
            return copied
        }
    }

    /// `name` as a quoted SQL identifier (table and column names come from the two schemas).
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Where a page of a SQLite table starts: after a rowid, or at an offset for a `WITHOUT ROWID` table.
enum SQLitePage {
    case afterRowID(Int64)
    case offset(Int)

    static let first = SQLitePage.afterRowID(Int64.min)
}
