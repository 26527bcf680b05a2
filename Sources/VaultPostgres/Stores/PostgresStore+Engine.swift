import PostgresNIO
public import Scheduler
public import Vault

extension PostgresStore: StorageEngine, AuditHeadStore, KeyStatusStore {
    /// The migration ids recorded in the database now, ascending.
    public func appliedMigrations() async throws -> [Int] {
        try await read { connection in
            try await connection.rows("SELECT id FROM schema_migrations ORDER BY id", logger: logger).map { try $0.int("id") }
        }
    }

    /// Rewrites the tables whose rows were just sealed (`VACUUM FULL`), so their files keep no
    /// dead version of a clear row (autovacuum only marks that space reusable). PostgreSQL's WAL
    /// still holds them until it is recycled, and a WAL archive for as long as it is kept.
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

    /// Rewrites `merchant_keys` (`VACUUM FULL`), so its file keeps no dead version of a row whose
    /// wrapped key was erased. The table is small: the exclusive lock lasts milliseconds. PostgreSQL's
    /// WAL, and a WAL archive, still hold the old version until they are recycled.
    public func discardDestroyedKeyCopies() async -> Bool {
        do {
            try await client.query("VACUUM FULL merchant_keys", logger: logger)
            return true
        } catch {
            return false
        }
    }
}
