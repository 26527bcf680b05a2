public import Foundation
public import Scheduler
public import Vault
import Payments

/// The embedded storage: every store protocol of the vault implemented over one SQLite database.
///
/// The PostgreSQL engine implements the same protocols.
public final class SQLiteStore: Sendable {
    /// The database, for the domain stores that extend this type.
    public let database: SQLiteDatabase
    /// The sandbox gateway's new charges, written together (`sandboxCall`).
    let sandboxCharges: GroupedWrites<DecidedSandboxCharge, Bool>

    /// Opens (creating if needed) and migrates the database at `path`.
    public convenience init(path: String, options: SQLiteDatabase.Options = .init()) throws {
        self.init(database: try SQLiteDatabase(path: path, options: options, migrations: Schema.migrations))
    }

    /// Uses an already opened database.
    public init(database: SQLiteDatabase) {
        self.database = database
        self.sandboxCharges = GroupedWrites(database: database) { connection in
            { charge in try Self.remember(charge, on: connection) }
        }
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

    /// A `TRUNCATE` checkpoint: the WAL keeps no page image of a key row before its wrapped key was
    /// erased (`secure_delete` has already zeroed it in the database file).
    public func discardDestroyedKeyCopies() async -> Bool {
        await database.truncateWAL()
    }
}

extension SQLiteStore: VaultStorage {}

extension SQLiteStore {
    /// The audit chain's key, shared by this database's connections.
    var auditKeys: AuditKeySlot { database.shared.value { AuditKeySlot() } }

    /// Queues an audit event to be appended by the next write batch, without waiting for it.
    ///
    /// For reads that must leave a trace (card retrievals): the event shares a batch and its
    /// fsync with other writes, and is lost if the process crashes before that batch commits.
    func appendAuditLater(_ event: PendingAuditEvent) {
        database.writeLater { connection in try connection.appendAudit(event) }
    }
}

extension SQLiteConnection {
    /// The audit chain's key slot of this connection's database.
    var auditKeySlot: AuditKeySlot { shared.value { AuditKeySlot() } }

    /// This connection's audit chain writer (on the writer connection).
    var auditChain: AuditChainWriter { attachment { AuditChainWriter(keys: auditKeySlot) } }

    /// Appends an audit event inside the current transaction, extending the hash chain.
    public func appendAudit(_ entry: AuditEntry, now: Date = Date()) throws {
        try appendAudit(PendingAuditEvent(entry, at: now))
    }

    /// Appends a prepared audit event inside the current transaction (outside one, in a transaction
    /// of its own), extending the keyed chain (see `AuditChainWriter`).
    /// - Throws: `SQLiteError`; `AuditChainError` (`noKeyring` when no keyring is open over the store).
    public func appendAudit(_ event: PendingAuditEvent) throws {
        guard isInTransaction else {
            return try inTransaction { try appendAudit(event) }
        }
        try auditChain.append(event, on: self)
    }

    /// The audit key on the writer (see `AuditChainWriter.key`).
    func auditChainKey(creating: Bool) throws -> SecureBytes? {
        try auditChain.key(creating: creating, on: self)
    }
}

/// Appends events to the keyed audit chain on the writer connection, as an observer of the open
/// write transaction.
///
/// The chain's head is read from `audit_events` at the transaction's first event and then kept:
/// no other connection can append while this one holds the write lock, and every rollback (also to
/// a savepoint) drops it. `meta.audit_head` is written once, before `COMMIT`
/// (`transactionWillCommit`) with the chain's binding row (`AuditChainBinding`). The audit key is fetched once per connection, not per event; one
/// created by a transaction that rolls back is dropped.
final class AuditChainWriter: SQLiteTransactionObserver {
    private let keys: AuditKeySlot
    /// The chain's head while a write transaction is open.
    private var head: AuditHead?
    /// The head before the open transaction's first event: the binding row advances only from it.
    private var startHead: AuditHead?
    /// Set when the open transaction appended events: the head is recorded before `COMMIT`.
    private var headIsPending = false
    /// The writer's copy of the audit key, in locked memory.
    private var cachedKey: SecureBytes?
    /// Set when the open transaction created the key: a rollback then drops `cachedKey`.
    private var keyIsPending = false

    init(keys: AuditKeySlot) {
        self.keys = keys
    }

    /// Links `event` to the head and inserts it, in `connection`'s open transaction.
    func append(_ event: PendingAuditEvent, on connection: SQLiteConnection) throws {
        let key = try key(creating: true, on: connection)!
        connection.observeTransaction(self)
        let previous = try head ?? Self.readHead(on: connection)
        if startHead == nil { startHead = previous }
        let sequence = previous.sequence + 1
        let link = try AuditChain.mac(
            key: key, previous: previous.hash, sequence: sequence, id: event.id, occurredAt: event.occurredAt, merchantID: event.merchantID,
            actor: event.actor, action: event.action, objectType: event.objectType, objectID: event.objectID, details: event.details)
        try connection.run(
            """
            INSERT INTO audit_events (seq, id, occurred_at, merchant_id, actor, action, object_type, object_id, details, prev_hash, hash)
            VALUES (\(sequence), \(event.id), \(event.occurredAt), \(event.merchantID), \(event.actor), \(event.action),
                \(event.objectType), \(event.objectID), \(event.details), \(previous.hash), \(link))
            """)
        head = AuditHead(sequence: sequence, hash: link)
        headIsPending = true
    }

    /// The audit key: this connection's copy, else the stored key, else (when `creating`) a new one
    /// inserted in the open transaction. Nil only when not `creating` and the database has none.
    func key(creating: Bool, on connection: SQLiteConnection) throws -> SecureBytes? {
        if let cachedKey { return cachedKey }
        if let stored = try keys.load(on: connection) {
            cachedKey = stored
            return stored
        }
        guard creating else { return nil }
        let created = try keys.create(on: connection, now: Timestamp.string(Date()))
        connection.observeTransaction(self)
        cachedKey = created
        keyIsPending = true
        return created
    }

    /// The last event's sequence and link, as stored.
    static func readHead(on connection: SQLiteConnection) throws -> AuditHead {
        guard let last = try connection.queryOne("SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1") else { return .genesis }
        return AuditHead(sequence: try last.int64("seq"), hash: try last.blob("hash"))
    }

    /// Writes `meta.audit_head` (sequence, link and their tag under the audit key) when the transaction
    /// appended events; read from `audit_events` when a savepoint rollback dropped the cached head, so
    /// the recorded head is always the last event that commits.
    func transactionWillCommit(_ connection: SQLiteConnection) throws {
        guard headIsPending else { return }
        let head = try head ?? Self.readHead(on: connection)
        if head.sequence > 0, let key = try key(creating: false, on: connection) {
            try connection.run(
                """
                INSERT INTO meta (key, value) VALUES ('audit_head',
                    \(AuditChain.headRecord(key: key, sequence: head.sequence, link: head.hash))) ON CONFLICT (key) DO UPDATE
                    SET value = excluded.value
                """)
            try Self.advanceBinding(
                to: try AuditChainBinding.make(auditKey: key, chain: AuditChainBinding.singleChain, events: head.sequence, head: head.hash),
                from: startHead ?? .genesis, on: connection)
        }
        headIsPending = false
    }

    /// Moves the chain's binding row to `binding`, only from `start` (the head before the
    /// transaction's first event): a chain started from nothing gets a row only if it has none. So
    /// a chain deleted (or cut) and then appended to keeps its old binding, and `audit verify` still
    /// reports it; a binding row deleted while events remain is not re-created by the next append.
    /// A row that trails `start` through an event of the chain (its place holds its link: events a
    /// build before bindings appended) is brought up too (``AuditChainBinding/mismatches(bindings:walked:auditKey:)``).
    static func advanceBinding(to binding: AuditChainBinding, from start: AuditHead, on connection: SQLiteConnection) throws {
        if start.sequence == 0 {
            try connection.run(
                """
                INSERT INTO audit_chain_bindings (chain, events, head, mac) VALUES (\(binding.chain), \(binding.events), \(binding.head),
                    \(binding.mac ?? [])) ON CONFLICT (chain) DO NOTHING
                """)
        } else {
            try connection.run(
                """
                UPDATE audit_chain_bindings SET events = \(binding.events), head = \(binding.head), mac = \(binding.mac ?? [])
                WHERE chain = \(binding.chain) AND ((events = \(start.sequence) AND head = \(start.hash))
                    OR (events > 0 AND events < \(start.sequence) AND EXISTS (
                        SELECT 1 FROM audit_events e WHERE e.seq = audit_chain_bindings.events AND e.hash = audit_chain_bindings.head)))
                """)
        }
    }

    /// Gives an unbound row (copied by the migration from an earlier build) its MAC.
    static func bindUnbound(_ binding: AuditChainBinding, on connection: SQLiteConnection) throws {
        try connection.run(
            """
            UPDATE audit_chain_bindings SET mac = \(binding.mac ?? [])
            WHERE chain = \(binding.chain) AND mac IS NULL AND events = \(binding.events) AND head = \(binding.head)
            """)
    }

    func transactionDidRollback(toSavepoint: Bool) {
        head = nil
        if keyIsPending { cachedKey = nil }
    }

    func transactionDidEnd(committed: Bool) {
        head = nil
        startHead = nil
        headIsPending = false
        keyIsPending = false
    }
}
