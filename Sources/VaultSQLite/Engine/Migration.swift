internal import CSQLite

/// One schema change, identified by a strictly increasing id and applied at most once.
///
/// Each pending migration runs with its `schema_migrations` row in one `BEGIN IMMEDIATE`
/// transaction, so a crash or a concurrent process never leaves it half applied. Foreign keys
/// are enforced during migrations (the pragma cannot change inside a transaction): a table
/// rebuild must keep references valid, or use `PRAGMA defer_foreign_keys = ON`.
public struct Migration: Sendable {
    /// The ordering id; applied ids are recorded in `schema_migrations`.
    public let id: Int
    /// A short human name, recorded alongside the id.
    public let name: String
    /// Applies the change on the writer connection, inside the migration's transaction.
    let apply: @Sendable (SQLiteConnection) throws -> Void

    /// A migration that runs an SQL script (one or more statements).
    public init(id: Int, name: String, sql: String) {
        self.init(id: id, name: name) { connection in
            try connection.execute(sql)
        }
    }

    /// A migration that runs Swift code, for changes a script cannot express (data backfills).
    public init(id: Int, name: String, _ apply: @escaping @Sendable (SQLiteConnection) throws -> Void) {
        self.id = id
        self.name = name
        self.apply = apply
    }
}

/// Applies pending migrations in id order on the writer connection.
struct Migrator {
    /// The migrations this build knows, checked to be in strictly increasing id order.
    let migrations: [Migration]

    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) if ids are not strictly increasing.
    init(_ migrations: [Migration]) throws {
        for (previous, next) in zip(migrations, migrations.dropFirst()) where next.id <= previous.id {
            throw SQLiteError.misuse(
                "migration ids must be strictly increasing: \(next.id) (\(next.name)) follows \(previous.id) (\(previous.name))"
            )
        }
        self.migrations = migrations
    }

    /// Creates the bookkeeping table if needed and applies every migration not yet recorded.
    ///
    /// Safe to run from several processes at once: each migration re-checks, under the
    /// write lock, whether another process applied it meanwhile.
    /// - Throws: `SQLiteError` if the database holds a migration this build does not know
    ///   (it was migrated by a newer build), or whatever a migration throws.
    func migrate(_ connection: SQLiteConnection) throws {
        let known = Set(migrations.map(\.id))
        let applied = try connection.inTransaction {
            try connection.execute(Self.createTableSQL)
            return try Self.appliedIDs(connection)
        }
        if let unknown = applied.first(where: { !known.contains($0) }) {
            throw SQLiteError(
                extendedCode: SQLITE_ERROR,
                message: "the database has migration \(unknown), unknown to this build; "
                    + "it was migrated by a newer version, refusing to use it"
            )
        }
        for migration in migrations where !applied.contains(migration.id) {
            try connection.inTransaction {
                guard try connection.queryOne("SELECT 1 FROM schema_migrations WHERE id = \(migration.id)") == nil else { return }
                try migration.apply(connection)
                try connection.run(
                    """
                    INSERT INTO schema_migrations (id, name, applied_at)
                    VALUES (\(migration.id), \(migration.name), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                    """)
            }
        }
    }

    /// The ids recorded in `schema_migrations`, in order.
    static func appliedIDs(_ connection: SQLiteConnection) throws -> [Int] {
        try connection.query("SELECT id FROM schema_migrations ORDER BY id").map { try $0.int("id") }
    }

    static let createTableSQL = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )
        """
}
