import Foundation
import Logging
import PostgresNIO
import Synchronization
import Vault
import VaultPostgres

/// The shared request-limit workload: `take` on PostgreSQL's token buckets (one row per subject,
/// updated in one statement), as every API request of a server on PostgreSQL pays it. Timed
/// serially and with concurrent takers over 64 subjects, with limits so high nothing is refused.
///
/// It runs in a database of its own, created on the server the URL names and dropped by
/// ``remove()``; nothing else in that server is touched.
public final class PostgresRequestLimitFixture: Sendable {
    /// The environment variable naming the PostgreSQL server of the benchmark (a URL such as
    /// `postgres://vault@127.0.0.1:5432/postgres`); the benchmark is skipped when it is absent.
    public static let serverVariable = "VAULT_BENCHMARK_DATABASE_URL"

    /// Distinct subjects the takes are spread over.
    public static let subjects = 64

    private let server: PostgresURL
    private let name: String
    private let client: PostgresClient
    private let running: Task<Void, Never>
    private let limits: PostgresRequestLimits

    private static let instance = Mutex<PostgresRequestLimitFixture?>(nil)

    /// The fixture the benchmarks share, created on first use (inside the benchmark's async
    /// context, never blocking a thread).
    public static func shared(serverURL url: String) async throws -> PostgresRequestLimitFixture {
        if let existing = instance.withLock({ $0 }) { return existing }
        let created = try await PostgresRequestLimitFixture(serverURL: url)
        let (kept, spare) = instance.withLock { stored -> (PostgresRequestLimitFixture, PostgresRequestLimitFixture?) in
            if let stored { return (stored, created) }
            stored = created
            return (created, nil)
        }
        await spare?.remove()
        return kept
    }

    /// A fresh database on the server `url` names, with the request-limit table and a random
    /// subject key.
    public init(serverURL url: String) async throws {
        let server = try PostgresURL(url)
        self.server = server
        let name = "limits_bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        self.name = name
        try await createDatabaseRetrying {
            try await Self.run(server) { client in
                try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Self.quiet)
            }
        }
        var own = server
        own.database = name
        let client = PostgresClient(configuration: try own.clientConfiguration(host: own.hosts[0]), backgroundLogger: Self.quiet)
        self.client = client
        running = Task { await client.run() }
        for statement in PostgresRequestLimits.schema {
            try await client.query(PostgresQuery(unsafeSQL: statement), logger: Self.quiet)
        }
        let key = try SecureBytes.random(count: 32)
        limits = PostgresRequestLimits(
            client: client, rules: .init(requestsPerSecond: 1_000_000, burst: 1_000_000, failedAuthLimit: 3, failedAuthWindowSeconds: 60),
            subjectKey: { key }, logger: Self.quiet)
    }

    /// Takes `count` tokens one after another, cycling over ``subjects``; returns how many were
    /// allowed (all of them: the limits are far above the rate).
    public func takeSerially(_ count: Int, from first: Int = 0) async throws -> Int {
        var allowed = 0
        for index in first..<(first + count) {
            let decision = try await limits.take(.apiKey, subject: "key-\(index % Self.subjects)")
            if decision == .allowed { allowed += 1 }
        }
        return allowed
    }

    /// Takes `count` tokens from `workers` concurrent tasks (`count / workers` each); returns how
    /// many were allowed.
    public func takeConcurrently(_ count: Int, workers: Int) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<workers {
                group.addTask { try await self.takeSerially(count / workers, from: worker) }
            }
            return try await group.reduce(0, +)
        }
    }

    /// Stops the client and drops the fixture's database.
    public func remove() async {
        running.cancel()
        let name = name
        try? await Self.run(server) { client in
            try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: Self.quiet)
        }
    }

    private static let quiet = Logger(label: "benchmark", factory: { _ in SwiftLogNoOpLogHandler() })

    private static func run(_ url: PostgresURL, _ body: (PostgresClient) async throws -> Void) async throws {
        let client = PostgresClient(configuration: try url.clientConfiguration(host: url.hosts[0]), backgroundLogger: quiet)
        let task = Task { await client.run() }
        defer { task.cancel() }
        try await body(client)
    }
}
