import Foundation
public import Logging
public import PostgresNIO
import Vault

/// One open write transaction of a `PostgresStore`: its connection, the audit chains it has
/// locked and extended, and the steps to run before `COMMIT`.
///
/// Used only inside the `write` body that received it (never kept, never shared across tasks).
public final class PostgresWrite {
    /// The transaction's connection.
    public let connection: PostgresConnection
    /// The store's logger.
    public var logger: Logger { store.logger }
    let store: PostgresStore

    /// The head of every audit chain this transaction locked, as extended so far.
    var chainHeads: [String: AuditChainHead] = [:]
    /// The chain locked for each merchant (or `platform`) this transaction writes events of.
    var chainShards: [String: String] = [:]
    /// The audit key as this transaction sees it (possibly created in it).
    var auditKey: SecureBytes?
    var createdAuditKey = false
    /// Audit events appended, linked and inserted before `COMMIT` (`insertPendingAudits`).
    var pendingAudits: [PendingAuditEvent] = []
    private var savepointDepth = 0

    init(connection: PostgresConnection, store: PostgresStore) {
        self.connection = connection
        self.store = store
    }

    /// The rows of `query`.
    public func rows(_ query: PostgresQuery) async throws -> [PostgresRowReader] {
        try await connection.rows(query, logger: logger)
    }

    /// The first row of `query`, or nil.
    public func row(_ query: PostgresQuery) async throws -> PostgresRowReader? {
        try await connection.row(query, logger: logger)
    }

    /// Runs `query`; returns how many rows it returned (end a statement with `RETURNING 1` to count
    /// the rows it changed).
    @discardableResult
    public func run(_ query: PostgresQuery) async throws -> Int {
        try await connection.run(query, logger: logger)
    }

    /// The rows of `query`, a statement prepared once per connection (`PostgresConnection.preparedRows`).
    public func rows(prepared query: PostgresQuery) async throws -> [PostgresRowReader] {
        try await connection.rows(prepared: query, logger: logger)
    }

    /// The first row of `query`, a statement prepared once per connection, or nil.
    public func row(prepared query: PostgresQuery) async throws -> PostgresRowReader? {
        try await connection.row(prepared: query, logger: logger)
    }

    /// Runs `query`, a statement prepared once per connection; returns how many rows it returned.
    @discardableResult
    public func run(prepared query: PostgresQuery) async throws -> Int {
        try await connection.run(prepared: query, logger: logger)
    }

    /// Runs `body` in a savepoint: when it throws, its changes (and the audit and webhook events it
    /// queued) are rolled back and the error rethrown; the rest of
    /// the transaction goes on. The charge runner records each outcome this way.
    @discardableResult
    public func savepoint<T>(_ body: (PostgresWrite) async throws -> T) async throws -> T {
        savepointDepth += 1
        let name = "vault_sp_\(savepointDepth)"
        let (heads, shards, key, created, audits) = (chainHeads, chainShards, auditKey, createdAuditKey, pendingAudits.count)
        defer { savepointDepth -= 1 }
        // The savepoints' texts are fixed per depth: prepared, as the statements around them are.
        try await run(prepared: PostgresQuery(unsafeSQL: "SAVEPOINT \(name)"))
        do {
            let result = try await body(self)
            try await run(prepared: PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(name)"))
            return result
        } catch {
            let mapped = PostgresStoreError.mapping(error) ?? error
            try await run(PostgresQuery(unsafeSQL: "ROLLBACK TO SAVEPOINT \(name)"))
            try await run(prepared: PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(name)"))
            // Row locks taken inside a rolled-back savepoint are released: forget those chains.
            chainHeads = heads
            chainShards = shards
            pendingAudits.removeSubrange(audits...)
            (auditKey, createdAuditKey) = (key, created)
            throw mapped
        }
    }

    /// Before `COMMIT`: the audit events appended, then the audit chains' heads.
    func finish() async throws {
        try await insertPendingAudits()
        try await writeChainHeads()
    }

    /// After `COMMIT`: a key created here is now the database's.
    func committed() {
        if createdAuditKey, let auditKey { store.auditKeys.remember(auditKey) }
    }
}
