import Foundation
import Logging
import VaultPostgres
import VaultSQLite

/// Where a database stands against the migrations this build knows, read without applying any.
struct MigrationStatus: Sendable, Equatable {
    /// One migration this build knows.
    struct Step: Sendable, Equatable {
        /// Its number.
        var id: Int
        /// What it does.
        var name: String
    }

    /// The ids recorded in the database, ascending (empty for a database never migrated).
    var applied: [Int]
    /// The migrations this build has and the database lacks, in the order they would run.
    var pending: [Step]
    /// Ids the database holds that this build does not know: a newer build migrated it.
    var unknown: [Int]

    /// The status of `applied` against `known`.
    init(applied: [Int], known: [Step]) {
        let recorded = Set(applied)
        let knownIDs = Set(known.map(\.id))
        self.applied = applied
        pending = known.filter { !recorded.contains($0.id) }
        unknown = applied.filter { !knownIDs.contains($0) }
    }

    /// Reads the database of `database`: on SQLite the file (a missing file has every migration
    /// pending); on PostgreSQL `schema_migrations` through a connection that applies nothing
    /// (it may create that table empty, as the missing-database check does).
    /// - Throws: `SQLiteError`; `PostgresStoreError` when no PostgreSQL server answers.
    static func read(_ database: VaultConfiguration.Database, logger: Logger) async throws -> MigrationStatus {
        if var url = database.url {
            url.maximumConnections = 1
            let probe = try await PostgresStore(url: url, logger: logger, migrations: [])
            defer { probe.close() }
            return MigrationStatus(applied: probe.migrationsAtStart, known: PostgresSchema.migrations.map { Step(id: $0.id, name: $0.name) })
        }
        let known = Schema.migrations.map { Step(id: $0.id, name: $0.name) }
        guard FileManager.default.fileExists(atPath: database.path) else { return MigrationStatus(applied: [], known: known) }
        try DatabaseFiles.check(path: database.path)
        return MigrationStatus(applied: try SQLiteBackup.appliedMigrations(database: database.path), known: known)
    }
}
