public import Logging
public import PostgresNIO
import Synchronization

/// The PostgreSQL engine (SPEC §13): a postgres-nio connection pool over one database, the
/// migrations, and transactions for the stores that extend this type (the Vault module's stores
/// here, the Payments and Scheduler stores beside them).
///
/// Several servers share one database: every write is one READ COMMITTED transaction whose
/// conflicting rows are locked explicitly (`FOR UPDATE`, `ON CONFLICT`, `SKIP LOCKED`), and the
/// audit log is one chain per merchant, so writers of different merchants never wait on each other.
public final class PostgresStore: Sendable {
    /// The database URL (its `description` hides the password).
    public let url: PostgresURL
    /// Where the engine and postgres-nio log (queries at debug level only).
    public let logger: Logger
    /// The migration ids recorded in the database after start-up, ascending.
    public let migrationsAtStart: [Int]
    /// The audit chain's key, unwrapped once through the keyring opened over the store.
    let auditKeys = PostgresAuditKeys()
    /// Card-data reads waiting for their audit events (`recordRead`).
    let readAudits = PostgresReadAuditQueue()

    /// Whether the charge runner's attempts and outcomes are written a group per statement
    /// (`PostgresStore+ChargeGroups.swift`); off, one step at a time (the way a group that a
    /// statement refuses is written). Turned off only by the throughput comparison and tests.
    let writesChargeGroups = Atomic<Bool>(true)

    private let connection: Mutex<PostgresPool>

    /// Connects to the first host of `url` that answers (the first accepting writes when the URL
    /// asks `target_session_attrs=read-write`) and applies the migrations this build has and the
    /// database lacks, under an advisory lock so servers starting together migrate once.
    /// - Throws: `PostgresStoreError.unavailable` when no host answers; server errors of the migrations.
    public init(url: PostgresURL, logger: Logger, migrations: [PostgresMigration] = PostgresSchema.migrations) async throws {
        self.url = url
        self.logger = logger
        let pool = try await PostgresPool.connect(url: url, logger: logger)
        do {
            migrationsAtStart = try await PostgresMigrator(migrations: migrations, logger: logger).migrate(pool.client)
        } catch {
            pool.shutdown()
            throw error
        }
        connection = Mutex(pool)
    }

    /// The current pool's client: the one place that knows which server is in use, so reconnecting
    /// to a promoted standby can swap it.
    var client: PostgresClient {
        connection.withLock { $0.client }
    }

    /// Stops the pool (open connections close; later calls fail).
    public func close() {
        connection.withLock { $0.shutdown() }
    }

    /// Whether the database answers a trivial query (readiness).
    public func isReachable() async -> Bool {
        (try? await client.withConnection { connection in
            try await connection.row("SELECT 1 AS one", logger: logger) != nil
        }) ?? false
    }

    /// Runs `body` in one read-only REPEATABLE READ transaction: every query of the body sees the
    /// same snapshot (a page and its count agree; the audit walk sees one state of each chain).
    @discardableResult
    public func read<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> sending T {
        try await client.withConnection { connection in
            try await connection.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            do {
                let result = try await body(connection)
                try await connection.run("COMMIT", logger: logger)
                return result
            } catch {
                _ = try? await connection.run("ROLLBACK", logger: logger)
                throw PostgresStoreError.mapping(error) ?? error
            }
        }
    }

    /// Runs `body` in one READ COMMITTED transaction, then its before-commit steps (the audit
    /// chains' heads), then COMMIT; rolls back when anything throws. Audit events and webhook
    /// events queued through the `PostgresWrite` commit with the change or not at all.
    @discardableResult
    public func write<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (PostgresWrite) async throws -> sending T
    ) async throws -> sending T {
        try await client.withConnection { connection in
            let transaction = PostgresWrite(connection: connection, store: self)
            try await connection.run("BEGIN", logger: logger)
            do {
                let result = try await body(transaction)
                try await transaction.finish()
                try await connection.run("COMMIT", logger: logger)
                transaction.committed()
                return result
            } catch {
                _ = try? await connection.run("ROLLBACK", logger: logger)
                throw PostgresStoreError.mapping(error) ?? error
            }
        }
    }
}

/// A running postgres-nio client and the task that runs it.
struct PostgresPool: Sendable {
    let client: PostgresClient
    let task: Task<Void, Never>

    func shutdown() {
        task.cancel()
    }

    /// The first host of `url` that answers as wanted, with its client running.
    static func connect(url: PostgresURL, logger: Logger) async throws -> PostgresPool {
        var reasons: [String] = []
        for host in url.hosts {
            // postgres-nio warns when a lease races the start of `run()` (harmless: the lease waits);
            // its connection failures reach the caller as errors, logged there.
            var background = logger
            background.logLevel = max(logger.logLevel, .error)
            do {
                // One plain connection first: the pool retries a dead host with backoff for
                // many seconds, while a refused connection or a 3 s silence settles it here.
                let writable = try await isWritable(url: url, host: host, logger: background)
                if url.targetSession == .any || writable {
                    let client = PostgresClient(configuration: try url.clientConfiguration(host: host), backgroundLogger: background)
                    return PostgresPool(client: client, task: Task { await client.run() })
                }
                reasons.append("\(host.name):\(host.port) is a standby")
            } catch {
                reasons.append("\(host.name):\(host.port): \(String(reflecting: type(of: error)))")
            }
        }
        throw PostgresStoreError.unavailable("no server of \(url) answered (\(reasons.joined(separator: "; ")))")
    }

    /// Whether `host` answers and is not in recovery, over one connection closed afterwards.
    private static func isWritable(url: PostgresURL, host: PostgresURL.Host, logger: Logger) async throws -> Bool {
        let connection = try await PostgresConnection.connect(
            on: PostgresClient.defaultEventLoopGroup.any(), configuration: try url.connectionConfiguration(host: host, connectTimeout: .seconds(3)),
            id: 0, logger: logger
        ).get()
        do {
            let writable = try await connection.row("SELECT NOT pg_is_in_recovery() AS writable", logger: logger)?.bool("writable") ?? false
            try? await connection.close()
            return writable
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
