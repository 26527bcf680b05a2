public import Logging
public import PostgresNIO
import Dispatch
import Payments
import Synchronization
import Vault

/// The PostgreSQL engine: a postgres-nio connection pool over one database, the
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

    /// How a failed write of read audits is tried again (`flushReadAudits`); shortened by tests.
    let readAuditRetry = Mutex(PostgresReadAuditRetry())
    /// Set by `close()`: a flush stops trying again.
    let isClosed = Atomic<Bool>(false)

    /// Whether the charge runner's attempts and outcomes are written a group per statement
    /// (`PostgresStore+ChargeGroups.swift`); off, one step at a time (the way a group that a
    /// statement refuses is written). Turned off only by the charge-loop benchmark and tests.
    let writesChargeGroups = Atomic<Bool>(true)

    /// Turns the grouped writes of the charge runner's attempts and outcomes on (the default) or
    /// off (one step at a time), for the charge-loop benchmark that compares the two. Benchmark
    /// SPI, not API: a server always writes in groups.
    @_spi(Benchmarks) public func writeChargeGroups(_ grouped: Bool) {
        writesChargeGroups.store(grouped, ordering: .relaxed)
    }

    /// The pool of the writable server, and the search for another one when it is lost.
    let primary: PostgresPrimary

    /// The sandbox gateway's new charges, remembered a group per statement (`sandboxCall`).
    let sandboxCharges: GroupedWrites<DecidedSandboxCharge, Bool>

    /// Connects to the first host of `url` that answers (the first accepting writes when the URL
    /// asks `target_session_attrs=read-write`) and applies the migrations this build has and the
    /// database lacks, under an advisory lock so servers starting together migrate once.
    ///
    /// Afterwards a transaction that finds its server gone or read-only (the primary killed, a
    /// standby promoted) makes the engine search the URL's hosts again, in process: no restart.
    /// - Throws: `PostgresFailoverError.noServer` when no host answers as wanted within the
    ///   policy's search deadline; server errors of the migrations.
    public init(
        url: PostgresURL, logger: Logger, migrations: [PostgresMigration] = PostgresSchema.migrations,
        failover: PostgresFailoverPolicy = .init()
    ) async throws {
        self.url = url
        self.logger = logger
        // postgres-nio warns when a lease races the start of `run()` (harmless: the lease waits);
        // its connection failures reach the caller as errors, logged there.
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        let primary = try await PostgresPrimary.connect(url: url, logger: background, policy: failover)
        do {
            migrationsAtStart = try await PostgresMigrator(migrations: migrations, logger: logger).migrate(primary.client)
        } catch {
            primary.close()
            throw error
        }
        self.primary = primary
        sandboxCharges = GroupedWrites(writesInFlight: Self.sandboxChargeWritesInFlight, itemsPerWrite: Self.sandboxChargesPerStatement) {
            [logger] charges in await Self.rememberNewCharges(charges, on: primary, logger: logger)
        }
    }

    /// The current pool's client (it changes after a failover).
    var client: PostgresClient {
        primary.client
    }

    /// Writes the card-data reads still queued for the audit log (as SQLite's close finishes its
    /// queued writes: a read answered just before shutdown is never missing from the log), then
    /// stops the pool (open connections close; later calls fail). Waits at most
    /// `closeFlushTimeout` for that write.
    public func close() {
        if !readAudits.waitUntilIdle(timeout: .now() + Self.closeFlushTimeout) {
            logger.error("closing with card-data reads not yet written to the audit log")
        }
        isClosed.store(true, ordering: .releasing)
        primary.close()
    }

    /// How long `close` waits for queued card-data reads to reach the audit log.
    static let closeFlushTimeout = DispatchTimeInterval.seconds(10)

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
        try await primary.transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { connection in
            do {
                let result = try await body(connection)
                try await connection.run(prepared: "COMMIT", logger: logger)
                return result
            } catch {
                _ = try? await connection.run("ROLLBACK", logger: logger)
                throw PostgresStoreError.mapping(error) ?? error
            }
        }
    }

    /// Runs `body`, a read of one statement, outside any transaction: one statement sees one
    /// snapshot anyway, and `read`'s `BEGIN` and `COMMIT` would be two more round trips. For the
    /// lookups of every request (the API key, a card, the custom fields). Retried on the new
    /// primary after a failover, as `read` is.
    @discardableResult
    public func readStatement<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> sending T {
        try await outsideTransaction(body)
    }

    /// Runs `body`, one statement that writes, outside any transaction: the statement commits
    /// alone and atomically, with no `BEGIN` and `COMMIT` round trips. Only for a statement that
    /// may run twice: after a failover it is run once more on the new primary, as `readStatement`
    /// is, and a connection lost during it leaves unknown whether it committed. An
    /// `INSERT ... ON CONFLICT DO NOTHING` whose caller answers the conflict from the row already
    /// there is such a statement (the sandbox ledger's new charges).
    @discardableResult
    public func idempotentWriteStatement<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> sending T {
        try await outsideTransaction(body)
    }

    /// `body` on a connection of the writable server with no transaction around it, run once more
    /// after a failover (what both single-statement forms above rest on), and once more when its
    /// statement was prepared on its connection before a migration changed the columns it returns:
    /// PostgreSQL refuses such a statement's next execution (0A000, "cached plan must not change
    /// result type"; an older server during a rolling upgrade), the engine has closed that
    /// connection, and the statement is prepared afresh on the next.
    private func outsideTransaction<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> sending T {
        try await Self.outsideTransaction(on: primary, body)
    }

    /// `outsideTransaction` on `primary`, for work set up before the store is (the grouped writes).
    static func outsideTransaction<T>(
        on primary: PostgresPrimary, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> sending T {
        do {
            do {
                return try await primary.reading(body)
            } catch where PostgresNamedStatement.isStalePlan(error) {
                return try await primary.reading(body)
            }
        } catch {
            throw PostgresStoreError.mapping(error) ?? error
        }
    }

    /// Runs `body` in one READ COMMITTED transaction, then the audit events it appended and the
    /// audit chains' heads, then COMMIT; rolls back when anything throws. Audit events and webhook
    /// events queued through the `PostgresWrite` commit with the change or not at all.
    ///
    /// `BEGIN READ WRITE` is refused by a standby, so a pool left on a demoted server moves to
    /// the writable one before the body runs. A connection lost during COMMIT is
    /// `PostgresFailoverError.commitOutcomeUnknown`, never success.
    @discardableResult
    public func write<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (PostgresWrite) async throws -> sending T
    ) async throws -> sending T {
        try await primary.transaction(begin: "BEGIN READ WRITE") { connection in
            let transaction = PostgresWrite(connection: connection, store: self)
            do {
                let result = try await body(transaction)
                try await transaction.finish()
                try await primary.commit(connection)
                transaction.committed()
                return result
            } catch {
                _ = try? await connection.run("ROLLBACK", logger: logger)
                throw PostgresStoreError.mapping(error) ?? error
            }
        }
    }
}
