import Foundation
import Vault
import Logging
import PostgresNIO

/// Applies the migrations a database lacks, in one transaction holding a transaction-level
/// advisory lock: servers starting together queue on the lock, and the later ones find the
/// migrations recorded.
struct PostgresMigrator {
    /// The advisory lock's key (any constant the vault owns: "vault-mi" as an integer).
    static let lockKey: Int64 = 0x7661_756c_742d_6d69

    let migrations: [PostgresMigration]
    let logger: Logger

    /// Migrates and returns the ids recorded afterwards.
    /// - Throws: `PostgresStoreError.misuse` when the ids are not strictly increasing; server errors.
    func migrate(_ client: PostgresClient) async throws -> [Int] {
        for (earlier, later) in zip(migrations, migrations.dropFirst()) where later.id <= earlier.id {
            throw PostgresStoreError.misuse("migration ids must increase (\(earlier.id) then \(later.id))")
        }
        return try await client.withConnection { connection in
            try await connection.run("BEGIN", logger: logger)
            do {
                try await connection.run("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
                try await connection.run(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (id bigint PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)",
                    logger: logger)
                let applied = Set(try await connection.rows("SELECT id FROM schema_migrations", logger: logger).map { try $0.int("id") })
                for migration in migrations where !applied.contains(migration.id) {
                    for statement in migration.statements {
                        try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.run(
                        """
                        INSERT INTO schema_migrations (id, name, applied_at)
                        VALUES (\(migration.id), \(migration.name), \(Timestamp.string(Date())))
                        """, logger: logger)
                    logger.info("applied database migration", metadata: ["migration": "\(migration.id)"])
                }
                let ids = try await connection.rows("SELECT id FROM schema_migrations ORDER BY id", logger: logger).map { try $0.int("id") }
                try await connection.run("COMMIT", logger: logger)
                return ids
            } catch {
                _ = try? await connection.run("ROLLBACK", logger: logger)
                throw error
            }
        }
    }
}
