public import Logging
public import PostgresNIO
import Synchronization

/// How the engine looks for the writable server again after losing it (a failover
/// between PostgreSQL hosts).
public struct PostgresFailoverPolicy: Sendable {
    /// How long one search for a writable server may take before the operations waiting on it
    /// fail (`PostgresFailoverError.noServer`). A standby's promotion takes about a second; the
    /// next operation starts a new search.
    public var searchDeadline: Duration
    /// The pause after a round over every host found none writable; doubled per round up to
    /// `maximumBackoff`.
    public var firstBackoff: Duration
    public var maximumBackoff: Duration
    /// How long one host may take to answer the probe (connect, log in, `pg_is_in_recovery()`).
    public var probeTimeout: Duration
    /// Transactions waiting this long for a connection while none was handed out start a search
    /// (a pool whose server died while idle only learns it when it fails to reconnect, and
    /// postgres-nio's pool gives up only after 15 s). The server is kept if it still answers.
    public var leaseStall: Duration

    /// - Parameters: see the properties; the defaults fit a primary and standbys on one network,
    ///   with room for a busy machine (a probe of 2 s failed under a loaded test run: a host that
    ///   is down refuses at once, a slow one must not be taken for down).
    public init(
        searchDeadline: Duration = .seconds(15), firstBackoff: Duration = .milliseconds(100),
        maximumBackoff: Duration = .seconds(1), probeTimeout: Duration = .seconds(5), leaseStall: Duration = .seconds(2)
    ) {
        self.searchDeadline = searchDeadline
        self.firstBackoff = firstBackoff
        self.maximumBackoff = maximumBackoff
        self.probeTimeout = probeTimeout
        self.leaseStall = leaseStall
    }
}

/// The connection pool of the server the engine writes to, and the search for another one when
/// that server is lost or turns read-only (a standby promoted, a primary demoted).
///
/// With several hosts and `target_session_attrs=read-write` the pool is on the host that is not
/// in recovery. A lease or `BEGIN` that fails because the server is gone or read-only searches the
/// hosts again (one search at a time, bounded by `PostgresFailoverPolicy.searchDeadline`, with
/// backoff) and retries on the new pool: nothing of the transaction ran yet. A failure after
/// `BEGIN` is reported to the caller (the body may have done work that must not run twice) and
/// starts a search, so the next transaction finds the new primary. A connection lost during
/// `COMMIT` is `PostgresFailoverError.commitOutcomeUnknown`, never success.
public final class PostgresPrimary: Sendable {
    public let url: PostgresURL
    let logger: Logger
    let policy: PostgresFailoverPolicy

    private struct State {
        var pool: PostgresHostPool
        /// Counts pool replacements: a failure seen on an older pool does not start a search.
        var generation: Int
        var search: Task<Void, any Error>?
        var closed: Bool
        /// Transactions waiting for a connection, and when one was last handed out (or the first
        /// began waiting): the watchdog's view of a stalled pool.
        var waiting: Int
        var lastGrant: ContinuousClock.Instant
        var watchdog: Task<Void, Never>?
        /// Why the last search found no server, while none has been found since: transactions fail
        /// at once instead of each waiting out a search of its own.
        var unavailable: String?
        /// Searches again in the background while the database is unavailable.
        var recovery: Task<Void, Never>?
    }

    private let state: Mutex<State>

    /// Takes over `pool` (already connected to a host of `url` that answers as wanted).
    public init(pool: PostgresHostPool, url: PostgresURL, logger: Logger, policy: PostgresFailoverPolicy = .init()) {
        self.url = url
        self.logger = logger
        self.policy = policy
        state = Mutex(State(
            pool: pool, generation: 0, search: nil, closed: false, waiting: 0, lastGrant: .now, watchdog: nil, unavailable: nil,
            recovery: nil))
        let interval = policy.leaseStall / 4
        let watchdog = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                self.checkForStall()
            }
        }
        state.withLock { $0.watchdog = watchdog }
    }

    deinit {
        state.withLock { $0.watchdog?.cancel() }
    }

    /// Starts a search when transactions have waited `leaseStall` for a connection and none was
    /// handed out meanwhile.
    private func checkForStall() {
        let stalled = state.withLock { state -> Int? in
            guard state.waiting > 0, state.search == nil,
                ContinuousClock.now - state.lastGrant >= policy.leaseStall
            else { return nil }
            state.lastGrant = .now
            return state.generation
        }
        if let stalled { startSearch(after: stalled, because: .stalled) }
    }

    private func leaseRequested() {
        state.withLock { state in
            if state.waiting == 0 { state.lastGrant = .now }
            state.waiting += 1
        }
    }

    private func leaseEnded(granted: Bool) {
        state.withLock { state in
            state.waiting -= 1
            if granted { state.lastGrant = .now }
        }
    }

    /// Connects to the first host of `url` that answers as wanted, searching with the policy's
    /// backoff until its deadline.
    /// - Throws: `PostgresFailoverError.noServer` when no host answers as wanted in time.
    public static func connect(url: PostgresURL, logger: Logger, policy: PostgresFailoverPolicy = .init()) async throws -> PostgresPrimary {
        let pool = try await PostgresHostPool.search(url: url, keeping: nil, logger: logger, policy: policy)
        return PostgresPrimary(pool: pool, url: url, logger: logger, policy: policy)
    }

    /// The current pool's client.
    public var client: PostgresClient {
        state.withLock { $0.pool.client }
    }

    /// The host the pool is on.
    public var host: PostgresURL.Host {
        state.withLock { $0.pool.host }
    }

    /// Stops the pool and any search (later transactions fail).
    public func close() {
        state.withLock { state in
            state.closed = true
            state.watchdog?.cancel()
            state.search?.cancel()
            state.recovery?.cancel()
            state.pool.shutdown()
        }
    }

    /// Leases a connection of the writable server, runs `begin` (e.g. `BEGIN READ WRITE`, which a
    /// server in recovery refuses with 25006), then `body`. A lease or `begin` failing because the
    /// server is lost or read-only searches the primary again and retries; a failure in `body`
    /// is rethrown (after starting a search when it shows the server lost or read-only).
    public func transaction<T>(
        isolation: isolated (any Actor)? = #isolation, begin: String,
        _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> sending T {
        try await leased(isolation: isolation, begin: begin, body)
    }

    /// Leases a connection of the writable server and runs `body` on it outside any transaction:
    /// each statement is its own snapshot and ends alone, with no `BEGIN` and `COMMIT` round trips
    /// (a read of one statement). Only for bodies that write nothing, or whose one write may run
    /// twice (`PostgresStore.idempotentWriteStatement`): a failure showing the server lost or
    /// read-only searches the primary again and runs `body` once more on the new pool, as a
    /// transaction whose `BEGIN` failed (reading twice changes nothing).
    public func reading<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> sending T {
        try await leased(isolation: isolation, begin: nil, body)
    }

    /// `transaction(begin:)`, or without `begin` the read of `reading`, retried on any failure of
    /// the server.
    private func leased<T>(
        isolation: isolated (any Actor)?, begin: String?, _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> sending T {
        var searches = 0
        while true {
            let (pool, generation, unavailable) = state.withLock { ($0.pool, $0.generation, $0.unavailable) }
            // A search already found no server: fail now (a 503 the client may retry) rather than
            // wait out the pool's connection attempts and a search per transaction; the recovery
            // search in the background makes the next transaction succeed once the server is back.
            if let unavailable { throw PostgresFailoverError.noServer(unavailable) }
            var began = false
            var granted = false
            leaseRequested()
            do {
                return try await pool.client.withConnection(isolation: isolation) { connection in
                    granted = true
                    leaseEnded(granted: true)
                    if let begin {
                        try await connection.run(prepared: PostgresQuery(unsafeSQL: begin), logger: logger)
                        began = true
                    }
                    return try await body(connection)
                }
            } catch {
                if !granted { leaseEnded(granted: false) }
                guard let failure = PostgresFailure(error, beginning: granted && !began && begin != nil) else { throw error }
                if began {
                    startSearch(after: generation, because: failure)
                    throw error
                }
                // Nothing ran: find the writable server and try once more on it. Two searches
                // that both end with a pool that fails at once end the retries; a search that
                // already found no server ends them at once.
                if let unavailable = state.withLock({ $0.unavailable }) { throw PostgresFailoverError.noServer(unavailable) }
                searches += 1
                guard searches <= 2 else { throw error }
                try await searchAgain(after: generation, because: failure)
            }
        }
    }

    /// Runs `COMMIT` on `connection`; a connection lost before its answer is
    /// `PostgresFailoverError.commitOutcomeUnknown` (and starts a search).
    public func commit(_ connection: PostgresConnection) async throws {
        let generation = state.withLock { $0.generation }
        do {
            try await connection.run(prepared: "COMMIT", logger: logger)
        } catch {
            guard let failure = PostgresFailure(error) else { throw error }
            startSearch(after: generation, because: failure)
            // A server that refused COMMIT as read-only committed nothing; a lost connection may have.
            throw failure == .readOnly ? error : PostgresFailoverError.commitOutcomeUnknown
        }
    }

    /// Starts a search in the background (the caller reports its own failure at once).
    func startSearch(after generation: Int, because failure: PostgresFailure) {
        _ = searchTask(after: generation, because: failure)
    }

    /// Waits for the search that replaces the pool of `generation` (starting it when none runs).
    func searchAgain(after generation: Int, because failure: PostgresFailure) async throws {
        guard let task = searchTask(after: generation, because: failure) else { return }
        try await task.value
    }

    /// The running search, a new one, or nil when the pool of `generation` was already replaced.
    private func searchTask(after generation: Int, because failure: PostgresFailure) -> Task<Void, any Error>? {
        state.withLock { state -> Task<Void, any Error>? in
            guard !state.closed else { return nil }
            guard state.generation == generation else { return nil }
            if let search = state.search { return search }
            let lost = state.pool
            logger.warning(
                "database server lost; searching the writable server",
                metadata: ["host": "\(lost.host.name):\(lost.host.port)", "failure": "\(failure)"])
            let task = Task { [self] in
                defer { self.state.withLock { $0.search = nil } }
                // The pool is kept when its host still answers as wanted (one backend ended, a
                // restart already over): replacing it would break the healthy connections'
                // transactions.
                let found: PostgresHostPool
                do {
                    found = try await PostgresHostPool.search(url: url, keeping: lost, logger: logger, policy: policy)
                } catch {
                    self.markUnavailable(error)
                    throw error
                }
                let replaced = self.state.withLock { state -> PostgresHostPool? in
                    guard !state.closed, found.client !== state.pool.client else { return nil }
                    let old = state.pool
                    state.pool = found
                    state.generation += 1
                    return old
                }
                if let replaced {
                    logger.notice(
                        "database server found", metadata: ["host": "\(found.host.name):\(found.host.port)"])
                    replaced.shutdown()
                } else if found.client !== lost.client {
                    found.shutdown()
                }
            }
            state.search = task
            return task
        }
    }
}

extension PostgresPrimary {
    /// Whether a search found no server and none has been found since (transactions fail at once).
    public var isUnavailable: Bool {
        state.withLock { $0.unavailable != nil }
    }

    /// Records that no server answered and starts the recovery search, which keeps searching (with
    /// the policy's backoff) until a server answers, then puts a new pool in place: a fresh pool,
    /// not the old one, whose own connection backoff after a long outage would keep leases waiting.
    fileprivate func markUnavailable(_ error: any Error) {
        let reason = (error as? PostgresFailoverError).map { failure -> String in
            if case .noServer(let reason) = failure { return reason }
            return "\(failure)"
        } ?? "\(error)"
        let dead = state.withLock { state -> PostgresHostPool? in
            guard !state.closed else { return nil }
            state.unavailable = reason
            guard state.recovery == nil else { return nil }
            logger.warning("database unavailable; requests fail at once until a server answers", metadata: ["reason": "\(reason)"])
            state.recovery = Task { [self] in await recover() }
            return state.pool
        }
        // Transactions already waiting in the dead pool for a connection fail now too (postgres-nio
        // would hold them until its own connection attempts give up, a minute later).
        dead?.shutdown()
    }

    private func recover() async {
        while !Task.isCancelled {
            do {
                let found = try await PostgresHostPool.search(url: url, keeping: nil, logger: logger, policy: policy)
                let replaced = state.withLock { state -> PostgresHostPool? in
                    guard !state.closed else { return found }
                    let old = state.pool
                    state.pool = found
                    state.generation += 1
                    state.unavailable = nil
                    state.recovery = nil
                    return old
                }
                if replaced?.client === found.client {
                    found.shutdown()
                } else {
                    logger.notice("database server back", metadata: ["host": "\(found.host.name):\(found.host.port)"])
                    replaced?.shutdown()
                }
                return
            } catch {
                try? await Task.sleep(for: policy.maximumBackoff)
            }
        }
    }
}

/// A running postgres-nio client on one host and the task that runs it.
public struct PostgresHostPool: Sendable {
    public let client: PostgresClient
    public let host: PostgresURL.Host
    let task: Task<Void, Never>

    /// Cancels the client's run: open connections close, waiting leases fail.
    func shutdown() {
        task.cancel()
    }

    enum Probe {
        case wanted(PostgresHostPool)
        case readOnly
        case unreachable(String)
    }

    /// A new client on `host`, when the host answers the probe as `url` wants within `timeout`.
    ///
    /// The probe is one plain connection (connect, log in, `pg_is_in_recovery()`), closed after:
    /// a pool retries a dead host with backoff for many seconds and does not give up when its
    /// waiter is cancelled, while a refused connection or a silence of `timeout` settles it here.
    static func open(host: PostgresURL.Host, url: PostgresURL, logger: Logger, timeout: Duration) async -> Probe {
        let writable: Bool
        do {
            let seconds = max(1, Int64((timeout / .milliseconds(1)).rounded(.up)) / 1000)
            let connection = try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.any(),
                configuration: try url.connectionConfiguration(host: host, connectTimeout: .seconds(seconds)), id: 0, logger: logger
            ).get()
            do {
                writable = try await connection.row("SELECT NOT pg_is_in_recovery() AS writable", logger: logger)?.bool("writable") ?? false
                try? await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
        } catch {
            return .unreachable(String(reflecting: type(of: error)))
        }
        guard writable || url.targetSession == .any else { return .readOnly }
        let client: PostgresClient
        do {
            client = PostgresClient(configuration: try url.clientConfiguration(host: host), backgroundLogger: logger)
        } catch {
            return .unreachable(String(reflecting: type(of: error)))
        }
        return .wanted(PostgresHostPool(client: client, host: host, task: Task { await client.run() }))
    }

    /// `keeping` when its host still answers as wanted, else the first host of `url` that does,
    /// searching in rounds with backoff until the policy's deadline.
    static func search(
        url: PostgresURL, keeping: PostgresHostPool?, logger: Logger, policy: PostgresFailoverPolicy
    ) async throws -> PostgresHostPool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: policy.searchDeadline)
        var backoff = policy.firstBackoff
        var reasons: [String] = []
        // The kept pool's host first: while it answers as wanted nothing moves.
        let hosts = keeping.map { kept in [kept.host] + url.hosts.filter { $0 != kept.host } } ?? url.hosts
        while true {
            reasons = []
            for host in hosts {
                try Task.checkCancellation()
                switch await open(host: host, url: url, logger: logger, timeout: policy.probeTimeout) {
                case .wanted(let pool):
                    if let keeping, keeping.host == host {
                        pool.shutdown()
                        return keeping
                    }
                    return pool
                case .readOnly:
                    reasons.append("\(host.name):\(host.port) is read-only")
                case .unreachable(let reason):
                    reasons.append("\(host.name):\(host.port): \(reason)")
                }
            }
            guard clock.now.advanced(by: backoff) < deadline else { break }
            try await Task.sleep(for: backoff)
            backoff = min(backoff * 2, policy.maximumBackoff)
        }
        throw PostgresFailoverError.noServer("no server of \(url) answered as wanted (\(reasons.joined(separator: "; ")))")
    }
}
