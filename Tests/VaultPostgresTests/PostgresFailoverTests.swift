import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import PostgresNIO
import Synchronization
import StorageTestSupport
import Testing
@testable import VaultPostgres

/// A primary and its synchronous streaming standby on loopback (scripts/lib/pg-cluster.sh), for
/// the failover tests; removed by `stop()`.
final class PostgresClusterPair: Sendable {
    /// The pair of the running suite (`.clusterPair`).
    @TaskLocal static var current: PostgresClusterPair?

    let primaryPort: Int
    let standbyPort: Int
    private let primaryDirectory: String
    private let standbyDirectory: String

    static var available: Bool {
        (try? shell("source scripts/lib/pg-cluster.sh && pg_bin initdb >/dev/null && echo yes")) == "yes"
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Runs `script` in bash from the repository's root; answers its standard output, trimmed.
    ///
    /// `posix_spawn` and `waitpid`, not Foundation's `Process` (whose termination monitoring
    /// never saw these children exit here, and see Tests/VaultAPITests/Subprocess.swift); output
    /// to a file, not a pipe, since the servers the script starts would inherit a pipe and hold it.
    @discardableResult
    static func shell(_ script: String, environment: [String: String] = [:]) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("failover-shell-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = ["/bin/bash", "-c", "cd \"$0\" && " + script, repository]
        let merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let cArguments = arguments.map { strdup($0) } + [nil]
        let cEnvironment = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, "/bin/bash", &actions, nil, cArguments, cEnvironment)
        guard code == 0 else { throw ShellFailure(status: -code) }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // WIFEXITED && WEXITSTATUS == 0
        guard raw & 0x7f == 0, (raw >> 8) & 0xff == 0 else { throw ShellFailure(status: raw) }
        return text
    }

    struct ShellFailure: Error {
        let status: Int32
    }

    /// Starts the pair off Swift's cooperative pool (it takes seconds; see `OffPool`).
    static func start() async throws -> PostgresClusterPair {
        try await OffPool.run { try PostgresClusterPair() }
    }

    private init() throws {
        let line = try Self.shell("""
            source scripts/lib/pg-cluster.sh
            pg_cluster_start_primary P failovertest >/dev/null || exit 1
            pg_cluster_start_standby S P failovertest >/dev/null || { pg_cluster_stop P; exit 1; }
            pg_cluster_wait_sync P failovertest 60 || { pg_cluster_stop S; pg_cluster_stop P; exit 1; }
            "$(pg_bin psql)" -X -q -h 127.0.0.1 -p "$PG_P_PORT" -U vault -d vault -c "CREATE TABLE acknowledged (id int PRIMARY KEY)" \
              >/dev/null || { pg_cluster_stop S; pg_cluster_stop P; exit 1; }
            echo "$PG_P_PORT $PG_S_PORT $PG_P_DIR $PG_S_DIR"
            """)
        let parts = line.split(separator: " ").map(String.init)
        guard parts.count == 4, let primary = Int(parts[0]), let standby = Int(parts[1]) else {
            throw ShellFailure(status: -1)
        }
        (primaryPort, standbyPort, primaryDirectory, standbyDirectory) = (primary, standby, parts[2], parts[3])
    }

    private var environment: [String: String] {
        ["PG_P_DIR": primaryDirectory, "PG_P_PORT": "\(primaryPort)", "PG_S_DIR": standbyDirectory, "PG_S_PORT": "\(standbyPort)"]
    }

    /// SIGKILL to the primary's processes.
    func killPrimary() async throws {
        try await run("source scripts/lib/pg-cluster.sh && pg_cluster_kill P")
    }

    /// Starts the primary again (after `killPrimary`), on its port and data directory.
    func restartPrimary() async throws {
        try await run("source scripts/lib/pg-cluster.sh && pg_cluster_run P")
    }

    /// `pg_ctl promote` on the standby.
    func promoteStandby() async throws {
        try await run("source scripts/lib/pg-cluster.sh && pg_cluster_promote S")
    }

    func stop() async {
        _ = try? await run("source scripts/lib/pg-cluster.sh && pg_cluster_stop S; pg_cluster_stop P")
    }

    /// `shell` with the pair's environment, off Swift's cooperative pool.
    private func run(_ script: String) async throws {
        let environment = environment
        _ = try await OffPool.run { try Self.shell(script, environment: environment) }
    }

    /// `postgres://vault@127.0.0.1:PORT,...` over the given ports, with `target_session_attrs=read-write`.
    func url(_ ports: [Int]) throws -> PostgresURL {
        let hosts = ports.map { "127.0.0.1:\($0)" }.joined(separator: ",")
        return try PostgresURL("postgres://vault@\(hosts)/vault?sslmode=disable&target_session_attrs=read-write")
    }
}

/// Starts a cluster pair before a suite and stops it after (starting one takes seconds); the
/// suite's tests read it from `PostgresClusterPair.current`.
struct ClusterPairScope: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let pair = try await PostgresClusterPair.start()
        do {
            try await PostgresClusterPair.$current.withValue(pair) { try await function() }
        } catch {
            await pair.stop()
            throw error
        }
        await pair.stop()
    }
}

extension Trait where Self == ClusterPairScope {
    /// A primary and its synchronous standby for the suite.
    static var clusterPair: ClusterPairScope { ClusterPairScope() }
}

/// Failover pieces shared by the two suites.
protocol FailoverFixture {}

extension FailoverFixture {
    var pair: PostgresClusterPair {
        get throws {
            guard let pair = PostgresClusterPair.current else { throw PostgresClusterPair.ShellFailure(status: -2) }
            return pair
        }
    }

    var logger: Logger { Logger(label: "failover-test", factory: { _ in SwiftLogNoOpLogHandler() }) }

    /// Generous bounds: the tests wait on conditions, not on time.
    var policy: PostgresFailoverPolicy {
        PostgresFailoverPolicy(searchDeadline: .seconds(60), probeTimeout: .seconds(10), leaseStall: .seconds(1))
    }

    func insert(_ primary: PostgresPrimary, _ value: Int) async throws {
        let logger = logger
        try await primary.transaction(begin: "BEGIN READ WRITE") { connection in
            try await connection.query("INSERT INTO acknowledged VALUES (\(value))", logger: logger)
            try await primary.commit(connection)
        }
    }

    func count(_ primary: PostgresPrimary) async throws -> Int {
        let logger = logger
        return try await primary.transaction(begin: "BEGIN READ ONLY") { connection in
            var total = 0
            for try await value in try await connection.query("SELECT count(*)::int FROM acknowledged", logger: logger)
                .decode(Int.self)
            {
                total = value
            }
            try await primary.commit(connection)
            return total
        }
    }
}

/// Multi-host failover of the engine: the writable host is found among
/// several, a read-only server sends transactions to the writable one, and a lost COMMIT is an
/// error, never success.
@Suite("PostgreSQL failover: finding the primary", .clusterPair, .enabled(if: PostgresClusterPair.available))
struct PostgresPrimarySearchTests: FailoverFixture {
    @Test func connectsToTheWritableHostEvenWhenTheStandbyIsListedFirst() async throws {
        let pair = try pair
        let primary = try await PostgresPrimary.connect(
            url: try pair.url([pair.standbyPort, pair.primaryPort]), logger: logger, policy: policy)
        defer { primary.close() }
        #expect(primary.host.port == pair.primaryPort)
        try await insert(primary, 1)
    }

    @Test func aURLOfOnlyAStandbyFindsNoWritableServer() async throws {
        let pair = try pair
        let quick = PostgresFailoverPolicy(searchDeadline: .milliseconds(300), probeTimeout: .seconds(10))
        let url = try pair.url([pair.standbyPort])
        await #expect(throws: PostgresFailoverError.self) {
            _ = try await PostgresPrimary.connect(url: url, logger: logger, policy: quick)
        }
    }

    @Test
    func aTransactionRefusedAsReadOnlyMovesToTheWritableHost() async throws {
        // A pool left on the standby (as after a primary is demoted): BEGIN READ WRITE is refused
        // there with 25006, so the engine searches and the write lands on the primary.
        let pair = try pair
        var anyHost = try pair.url([pair.standbyPort, pair.primaryPort])
        anyHost.targetSession = .any
        guard case .wanted(let standbyPool) = await PostgresHostPool.open(
            host: anyHost.hosts[0], url: anyHost, logger: logger, timeout: .seconds(10))
        else {
            Issue.record("the standby did not answer")
            return
        }
        let primary = PostgresPrimary(
            pool: standbyPool, url: try pair.url([pair.standbyPort, pair.primaryPort]), logger: logger, policy: policy)
        defer { primary.close() }
        try await insert(primary, 2)
        #expect(primary.host.port == pair.primaryPort)
    }

    @Test
    func aConnectionLostDuringCommitIsAnErrorNotSuccess() async throws {
        let pair = try pair
        let logger = logger
        let primary = try await PostgresPrimary.connect(url: try pair.url([pair.primaryPort]), logger: logger, policy: policy)
        defer { primary.close() }
        try await insert(primary, 3)
        await #expect(throws: PostgresFailoverError.commitOutcomeUnknown) {
            try await primary.transaction(begin: "BEGIN READ WRITE") { connection in
                try await connection.query("INSERT INTO acknowledged VALUES (4)", logger: logger)
                var backend: Int32 = 0
                for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: logger).decode(Int32.self) {
                    backend = pid
                }
                // Another session ends this one's backend, as a crash between the body and COMMIT would.
                _ = try await primary.client.withConnection { other in
                    try await other.query("SELECT pg_terminate_backend(\(backend))", logger: logger)
                }
                try await primary.commit(connection)
            }
        }
        // The engine found the server again by itself: the next write succeeds.
        try await insert(primary, 5)
    }
}

/// The primary killed with SIGKILL and the standby promoted: the engine reconnects by itself.
@Suite("PostgreSQL failover: promotion", .clusterPair, .enabled(if: PostgresClusterPair.available))
struct PostgresPromotionTests: FailoverFixture {
    @Test func writesReachThePromotedStandbyAfterThePrimaryIsKilledWhileIdle() async throws {
        let pair = try pair
        let primary = try await PostgresPrimary.connect(
            url: try pair.url([pair.primaryPort, pair.standbyPort]), logger: logger, policy: policy)
        defer { primary.close() }
        try await insert(primary, 10)
        let before = try await count(primary)
        try await pair.killPrimary()
        try await pair.promoteStandby()
        // The pool's connections died with the primary while idle: the write waits for a
        // connection, the stalled pool starts a search, which finds the promoted standby; the
        // acknowledged row is there (the standby was synchronous).
        try await insert(primary, 11)
        #expect(primary.host.port == pair.standbyPort)
        #expect(try await count(primary) == before + 1)
    }
}

/// The engine itself (`PostgresStore`, which every store of the vault runs on) over a multi-host
/// URL: after the primary is killed and the standby promoted, the same store writes again without
/// a restart, and what it acknowledged before is there.
@Suite("PostgreSQL failover: the store reconnects in process", .clusterPair, .enabled(if: PostgresClusterPair.available))
struct PostgresStoreFailoverTests: FailoverFixture {
    @Test func aStoreWritesToThePromotedStandbyWithoutARestart() async throws {
        let pair = try pair
        let store = try await PostgresStore(
            url: try pair.url([pair.primaryPort, pair.standbyPort]), logger: logger, failover: policy)
        defer { store.close() }
        for value in 20..<25 {
            try await store.write { write in try await write.run("INSERT INTO acknowledged VALUES (\(value))") }
        }
        try await pair.killPrimary()
        try await pair.promoteStandby()
        // The first transactions after the kill may fail (their connection died under them); the
        // engine searches meanwhile, and a write soon lands on the promoted standby.
        var landed = false
        for attempt in 0..<100 where !landed {
            do {
                try await store.write { write in try await write.run("INSERT INTO acknowledged VALUES (\(100 + attempt))") }
                landed = true
            } catch {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(landed)
        let acknowledged = try await store.read { connection in
            try await connection.row("SELECT count(*) AS n FROM acknowledged WHERE id BETWEEN 20 AND 24", logger: logger)?.int("n")
        }
        #expect(acknowledged == 5)
        #expect(store.primary.host.port == pair.standbyPort)
    }
}

/// The only server down, then back: once a search has found no server, transactions fail at once
/// with `PostgresFailoverError.noServer` (which the API answers 503 `database_unavailable`)
/// instead of each waiting out the pool's connection attempts and a search of its own (a request
/// took 52-76 s, then a 500); a search in the background puts a fresh pool in place as soon as the
/// server answers again, so the engine recovers without a restart.
@Suite("PostgreSQL outage: fail at once, recover by itself", .clusterPair, .enabled(if: PostgresClusterPair.available))
struct PostgresOutageTests: FailoverFixture {
    @Test func afterASearchFindsNoServerTransactionsFailAtOnceUntilTheServerIsBack() async throws {
        let pair = try pair
        let quick = PostgresFailoverPolicy(
            searchDeadline: .seconds(2), maximumBackoff: .milliseconds(200), probeTimeout: .seconds(10), leaseStall: .milliseconds(500))
        let primary = try await PostgresPrimary.connect(url: try pair.url([pair.primaryPort]), logger: logger, policy: quick)
        defer { primary.close() }
        try await insert(primary, 30)
        #expect(!primary.isUnavailable)

        try await pair.killPrimary()
        // The transactions that find out fail (a lost connection, or no server after the search).
        for attempt in 0..<100 where !primary.isUnavailable {
            _ = try? await insert(primary, 1000 + attempt)
            if !primary.isUnavailable { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(primary.isUnavailable)
        let ran = Mutex(false)
        await #expect(throws: PostgresFailoverError.self) {
            try await primary.transaction(begin: "BEGIN READ WRITE") { _ in ran.withLock { $0 = true } }
        }
        #expect(!ran.withLock { $0 }, "nothing ran: the transaction failed before leasing a connection")

        try await pair.restartPrimary()
        var landed = false
        for _ in 0..<150 where !landed {
            do {
                try await insert(primary, 32)
                landed = true
            } catch {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(landed, "the engine found the server again by itself")
        #expect(!primary.isUnavailable)
        #expect(try await count(primary) >= 2)
    }
}
