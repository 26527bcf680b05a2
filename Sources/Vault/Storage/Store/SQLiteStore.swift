public import Foundation

/// The embedded storage: every store protocol of the vault implemented over one SQLite database.
///
/// A PostgreSQL implementation (SPEC §13) implements the same protocols.
public final class SQLiteStore: Sendable {
    /// The database, for the domain stores that extend this type.
    public let database: SQLiteDatabase

    /// Opens (creating if needed) and migrates the database at `path`.
    public init(path: String, options: SQLiteDatabase.Options = .init()) throws {
        self.database = try SQLiteDatabase(path: path, options: options, migrations: Schema.migrations)
    }

    /// Uses an already opened database.
    public init(database: SQLiteDatabase) {
        self.database = database
    }

    /// Whether the database answers a trivial query (readiness).
    public func isReachable() async -> Bool {
        (try? await database.read { connection in try connection.queryOne("SELECT 1 AS one") != nil }) ?? false
    }

    /// Closes the database.
    public func close() {
        database.close()
    }
}

extension SQLiteConnection {
    /// Appends an audit event inside the current transaction, extending the hash chain.
    public func appendAudit(_ entry: AuditEntry, now: Date = Date()) throws {
        let last = try queryOne("SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1")
        let sequence = (try last?.int64("seq") ?? 0) + 1
        let previous = try last?.blob("hash") ?? AuditChain.genesis
        let id = OpaqueToken.make(prefix: "ae_", randomBits: 80)
        let occurredAt = Timestamp.string(now)
        let details = AuditChain.canonicalDetails(entry.details)
        let hash = AuditChain.hash(
            previous: previous, sequence: sequence, id: id, occurredAt: occurredAt, merchantID: entry.merchantID,
            actor: entry.actor, action: entry.action, objectType: entry.objectType, objectID: entry.objectID, details: details)
        try run(
            """
            INSERT INTO audit_events (seq, id, occurred_at, merchant_id, actor, action, object_type, object_id, details, prev_hash, hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [sequence, id, occurredAt, entry.merchantID, entry.actor, entry.action, entry.objectType, entry.objectID, details, previous, hash])
        try run(
            "INSERT INTO meta (key, value) VALUES ('audit_head', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [String(sequence) + ":" + Encoding.hex(hash)])
    }
}
