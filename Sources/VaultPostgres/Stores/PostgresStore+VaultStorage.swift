public import Scheduler
import PostgresNIO

/// PostgreSQL is a complete backend: every store protocol of the runtime and the engine's own.
extension PostgresStore: VaultStorage {
    public func appliedMigrations() async throws -> [Int] {
        try await read { connection in
            try await connection.rows("SELECT id FROM schema_migrations ORDER BY id", logger: logger).map { try $0.int("id") }
        }
    }

    /// Rewrites the tables whose rows were just sealed (`VACUUM FULL`), so their files keep no
    /// dead version of a clear row. PostgreSQL's WAL still holds them until it is recycled; an
    /// operator who archives WAL keeps them for as long as the archive (docs/SECURITY.md).
    public func discardSupersededRowVersions() async -> Bool {
        do {
            for table in ["idempotency_keys", "secure_cards", "schedules"] {
                try await client.query(PostgresQuery(unsafeSQL: "VACUUM FULL \(table)"), logger: logger)
            }
            return true
        } catch {
            return false
        }
    }
}
