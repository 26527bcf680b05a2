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

    /// Nothing to do on PostgreSQL: autovacuum removes superseded row versions (SQLite's secure
    /// delete and WAL truncation have no counterpart the vault must drive).
    public func discardSupersededRowVersions() async -> Bool {
        true
    }
}
