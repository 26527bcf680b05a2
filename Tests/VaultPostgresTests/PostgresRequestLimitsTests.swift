import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization
import Testing
import StorageTestSupport
import Vault
@testable import VaultPostgres

/// The request limits shared by every server of one database, on a real PostgreSQL. Runs when
/// `VAULT_TEST_DATABASE_URL` names a server whose role may create databases
/// (`scripts/lib/pg-cluster.sh`); each test works in a database of its own, dropped afterwards.
@Suite(.enabled(if: PostgresLimitsDatabase.url != nil, "VAULT_TEST_DATABASE_URL not set"))
struct PostgresRequestLimitsTests {
    /// Seconds the test moves by hand.
    final class WallClock: Sendable {
        private let now = Mutex(1_800_000_000.0)
        func advance(by seconds: Double) { now.withLock { $0 += seconds } }
        var reading: @Sendable () -> Double { { self.now.withLock { $0 } } }
    }

    static let rules = PostgresRequestLimits.Rules(requestsPerSecond: 1, burst: 4, failedAuthLimit: 3, failedAuthWindowSeconds: 60)

    @Test func twoServersTakeFromOneBucketPerKeyAndItRefillsAtTheRate() async throws {
        try await PostgresLimitsDatabase.with { (client, key) async throws in
            let clock = WallClock()
            let first = PostgresRequestLimits(client: client, rules: Self.rules, subjectKey: { key }, clock: clock.reading, logger: .quiet)
            let second = PostgresRequestLimits(client: client, rules: Self.rules, subjectKey: { key }, clock: clock.reading, logger: .quiet)
            var decisions: [RequestLimitDecision] = []
            for index in 0..<6 { decisions.append(try await (index % 2 == 0 ? first : second).take(.apiKey, subject: "key-a")) }
            #expect(decisions == [.allowed, .allowed, .allowed, .allowed, .limited(retryAfterSeconds: 1), .limited(retryAfterSeconds: 1)])
            #expect(try await second.take(.apiKey, subject: "key-b") == .allowed, "another key has its own bucket")
            #expect(try await first.take(.failedAuthentication, subject: "key-a") == .allowed, "scopes do not share buckets")
            clock.advance(by: 0.5)
            #expect(try await first.take(.apiKey, subject: "key-a") == .limited(retryAfterSeconds: 1))
            clock.advance(by: 0.5)
            #expect(try await second.take(.apiKey, subject: "key-a") == .allowed)
            #expect(try await first.take(.apiKey, subject: "key-a") == .limited(retryAfterSeconds: 1))
            clock.advance(by: 3600)
            for _ in 0..<4 { #expect(try await first.take(.apiKey, subject: "key-a") == .allowed) }
            #expect(try await second.take(.apiKey, subject: "key-a") == .limited(retryAfterSeconds: 1), "it refills up to the burst only")
        }
    }

    @Test func aTakeIsOneStatementPreparedOnceOnItsConnection() async throws {
        try await PostgresLimitsDatabase.withURL { own in
            var single = own
            single.maximumConnections = 1
            let client = PostgresClient(configuration: try single.clientConfiguration(host: single.hosts[0]), backgroundLogger: .quiet)
            let task = Task { await client.run() }
            defer { task.cancel() }
            for statement in PostgresRequestLimits.schema { try await client.query(PostgresQuery(unsafeSQL: statement), logger: .quiet) }
            let key = try SecureBytes.random(count: 32)
            let limits = PostgresRequestLimits(client: client, rules: Self.rules, subjectKey: { key }, clock: WallClock().reading, logger: .quiet)
            let counter = PostgresStatementCounter()
            try await PostgresStatementCounter.$current.withValue(counter) {
                for _ in 0..<6 { _ = try await limits.take(.apiKey, subject: "key-a") }
            }
            #expect(counter.statements == Array(repeating: PostgresRequestLimits.takeStatement, count: 6))
            var prepared: [(statement: String, executions: Int64)] = []
            let sql: PostgresQuery = "SELECT statement, (generic_plans + custom_plans)::bigint FROM pg_prepared_statements"
            for try await row in try await client.query(sql, logger: .quiet).decode((String, Int64).self) { prepared.append(row) }
            #expect(prepared.count == 1)
            #expect(prepared.first?.statement == PostgresRequestLimits.takeStatement && prepared.first?.executions == 6)
        }
    }

    @Test func concurrentRequestsOnSeveralConnectionsNeverGetMoreThanTheBurst() async throws {
        try await PostgresLimitsDatabase.with { (client, key) async throws in
            let limits = PostgresRequestLimits(client: client, rules: Self.rules, subjectKey: { key }, clock: WallClock().reading, logger: .quiet)
            let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<40 { group.addTask { try await limits.take(.apiKey, subject: "busy") == .allowed } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(allowed == 4)
        }
    }

    @Test func failuresPerAddressRefillOverTheWindowAndSayWhenToRetry() async throws {
        try await PostgresLimitsDatabase.with { (client, key) async throws in
            let clock = WallClock()
            let limits = PostgresRequestLimits(client: client, rules: Self.rules, subjectKey: { key }, clock: clock.reading, logger: .quiet)
            for _ in 0..<3 { #expect(try await limits.take(.failedAuthentication, subject: "192.0.2.7") == .allowed) }
            #expect(try await limits.take(.failedAuthentication, subject: "192.0.2.7") == .limited(retryAfterSeconds: 20))
            clock.advance(by: 20)
            #expect(try await limits.take(.failedAuthentication, subject: "192.0.2.7") == .allowed)
        }
    }

    @Test func theTableNamesBucketsByAKeyedMACNeverByTheAddressOrKeyID() async throws {
        try await PostgresLimitsDatabase.with { (client, key) async throws in
            let limits = PostgresRequestLimits(client: client, rules: Self.rules, subjectKey: { key }, clock: WallClock().reading, logger: .quiet)
            _ = try await limits.take(.failedAuthentication, subject: "198.51.100.23")
            _ = try await limits.take(.apiKey, subject: "KEYID0123456789A")
            var subjects: [[UInt8]] = []
            for try await subject in try await client.query("SELECT subject FROM request_limits", logger: .quiet).decode(ByteBuffer.self) {
                subjects.append(Array(subject.readableBytesView))
            }
            #expect(subjects.count == 2)
            for subject in subjects {
                #expect(subject.count == 16)
                #expect(!String(decoding: subject, as: UTF8.self).contains("198.51"))
                #expect(!String(decoding: subject, as: UTF8.self).contains("KEYID"))
            }
            let otherKey = try SecureBytes.random(count: 32)
            let elsewhere = PostgresRequestLimits(client: client, rules: Self.rules, subjectKey: { otherKey }, clock: WallClock().reading, logger: .quiet)
            _ = try await elsewhere.take(.failedAuthentication, subject: "198.51.100.23")
            #expect(try await limits.bucketCount() == 3, "another key names the same address differently")
        }
    }

    @Test func bucketsFullAgainArePrunedAndAnOffLimitWritesNothing() async throws {
        try await PostgresLimitsDatabase.with { (client, key) async throws in
            let clock = WallClock()
            let limits = PostgresRequestLimits(client: client, rules: Self.rules, subjectKey: { key }, clock: clock.reading, logger: .quiet)
            for index in 0..<10 { _ = try await limits.take(.apiKey, subject: "key-\(index)") }
            #expect(try await limits.bucketCount() == 10)
            clock.advance(by: PostgresRequestLimits.pruneIntervalSeconds + 1)
            _ = try await limits.take(.apiKey, subject: "key-0")
            #expect(try await limits.bucketCount() == 1, "only the bucket just used is left")
            let off = PostgresRequestLimits(
                client: client, rules: .init(requestsPerSecond: 0, burst: 1, failedAuthLimit: 3, failedAuthWindowSeconds: 60), subjectKey: { key },
                clock: clock.reading, logger: .quiet)
            for _ in 0..<100 { #expect(try await off.take(.apiKey, subject: "key-x") == .allowed) }
            #expect(try await limits.bucketCount() == 1)
        }
    }

    @Test func theRequestLimitTableIsCreatedByMigrationThree() async throws {
        try await PostgresLimitsDatabase.withURL { url in
            let store = try await PostgresStore(url: url, logger: .quiet)
            defer { store.close() }
            #expect(store.migrationsAtStart.contains(3), "the request-limit table is migration 3")
        }
    }
}

/// A database of its own for one test on the server `VAULT_TEST_DATABASE_URL` names.
enum PostgresLimitsDatabase {
    static let url = ProcessInfo.processInfo.environment["VAULT_TEST_DATABASE_URL"]

    static func with(_ body: (PostgresClient, SecureBytes) async throws -> Void) async throws {
        try await withURL { own in
            try await run(own) { client in
                for statement in PostgresRequestLimits.schema { try await client.query(PostgresQuery(unsafeSQL: statement), logger: .quiet) }
                try await body(client, try SecureBytes.random(count: 32))
            }
        }
    }

    /// Runs `body` with the URL of a new empty database, dropped afterwards.
    static func withURL(_ body: (PostgresURL) async throws -> Void) async throws {
        let base = try PostgresURL(try #require(url))
        let name = "limits_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await PostgresTestDatabase.createDatabase(name, server: base)
        var own = base
        own.database = name
        do {
            try await body(own)
        } catch {
            try? await run(base) { client in try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: .quiet) }
            throw error
        }
        try await run(base) { client in try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: .quiet) }
    }

    private static func run(_ url: PostgresURL, _ body: (PostgresClient) async throws -> Void) async throws {
        let client = PostgresClient(configuration: try url.clientConfiguration(host: url.hosts[0]), backgroundLogger: .quiet)
        let task = Task { await client.run() }
        defer { task.cancel() }
        try await body(client)
    }
}

extension Logger {
    /// A logger that writes nothing.
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
}
