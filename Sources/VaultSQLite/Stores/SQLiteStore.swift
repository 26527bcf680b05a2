public import Foundation
public import Scheduler
public import Vault

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

    /// The ids recorded in `schema_migrations`, in increasing order.
    public func appliedMigrations() async throws -> [Int] {
        try await database.read { connection in try Migrator.appliedIDs(connection) }
    }

    /// A `TRUNCATE` checkpoint (`SQLiteDatabase.truncateWAL`): the WAL keeps no page image of rows since rewritten.
    public func discardSupersededRowVersions() async -> Bool {
        await database.truncateWAL()
    }
}

extension SQLiteStore: VaultStorage {}

extension SQLiteConnection {
    /// Appends an audit event inside the current transaction, extending the hash chain.
    public func appendAudit(_ entry: AuditEntry, now: Date = Date()) throws {
        try appendAudit(PendingAuditEvent(entry, at: now))
    }

    /// Appends a prepared audit event inside the current transaction (outside one, in a transaction
    /// of its own), extending the keyed chain.
    ///
    /// The chain's head is read from `audit_events` at the transaction's first event and then kept
    /// on the connection: no other connection can append while this one holds the write lock, and
    /// every rollback drops it. `meta.audit_head` is written once, before `COMMIT`. The audit key
    /// is fetched once per connection (`auditChainKey`), not per event.
    /// - Throws: `SQLiteError` (`misuse` when no keyring is open over the store).
    public func appendAudit(_ event: PendingAuditEvent) throws {
        guard isInTransaction else {
            return try inTransaction { try appendAudit(event) }
        }
        let key = try auditChainKey(creating: true)!
        let previous = try auditHead ?? readAuditHead()
        let sequence = previous.sequence + 1
        let link = try AuditChain.mac(
            key: key, previous: previous.hash, sequence: sequence, id: event.id, occurredAt: event.occurredAt, merchantID: event.merchantID,
            actor: event.actor, action: event.action, objectType: event.objectType, objectID: event.objectID, details: event.details)
        try run(
            """
            INSERT INTO audit_events (seq, id, occurred_at, merchant_id, actor, action, object_type, object_id, details, prev_hash, hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [sequence, event.id, event.occurredAt, event.merchantID, event.actor, event.action, event.objectType, event.objectID,
             event.details, previous.hash, link])
        auditHead = AuditHead(sequence: sequence, hash: link)
        auditHeadIsPending = true
    }

    /// The audit key on the writer: this connection's copy, else the stored key, else (when
    /// `creating`) a new one inserted in the open transaction. Nil only when not `creating` and
    /// the database has none.
    func auditChainKey(creating: Bool) throws -> SecureBytes? {
        if let auditKey { return auditKey }
        guard let slot = auditKeySlot else {
            throw SQLiteError.misuse("the audit chain's key is not available on this connection")
        }
        if let stored = try slot.load(on: self) {
            auditKey = stored
            return stored
        }
        guard creating else { return nil }
        let created = try slot.create(on: self, now: Timestamp.string(Date()))
        auditKey = created
        auditKeyIsPending = true
        return created
    }

    /// The last event's sequence and link, as stored.
    func readAuditHead() throws -> AuditHead {
        guard let last = try queryOne("SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1") else { return .genesis }
        return AuditHead(sequence: try last.int64("seq"), hash: try last.blob("hash"))
    }

    /// Writes `meta.audit_head` (sequence, link and their tag under the audit key) when the open
    /// transaction appended audit events (called before `COMMIT`).
    ///
    /// Read from `audit_events` when a savepoint rollback dropped the cached head, so the recorded head
    /// is always the last event that commits.
    func recordPendingAuditHead() throws {
        guard auditHeadIsPending, isInTransaction else { return }
        let head = try auditHead ?? readAuditHead()
        if head.sequence > 0, let key = try auditChainKey(creating: false) {
            try run(
                "INSERT INTO meta (key, value) VALUES ('audit_head', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [try AuditChain.headRecord(key: key, sequence: head.sequence, link: head.hash)])
        }
        auditHeadIsPending = false
    }
}
