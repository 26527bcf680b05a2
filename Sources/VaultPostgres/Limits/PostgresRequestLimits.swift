public import Foundation
public import Logging
import NIOCore
public import PostgresNIO
import Synchronization
public import Vault

/// The per-key rate limit and the failed-authentication limiter of every server on one PostgreSQL
/// database: a key's limit is global, not per process.
///
/// The same token bucket as the in-process limiter, one row per bucket in the unlogged table
/// `request_limits` (migration 3), taken with one atomic statement per request: `INSERT ... ON
/// CONFLICT DO UPDATE ... RETURNING` refills the bucket for the time since its last request, takes
/// a token when there is one and says whether it did, under the row lock, so concurrent requests
/// on several servers each see the bucket the previous one left.
///
/// A bucket is named by a keyed MAC (BLAKE2b, 16 bytes, under ``Keyring/requestLimitKey()``) of
/// its scope and subject (API key id, client address): the table never holds an address, and a
/// copy of it cannot be tested against candidate addresses. Rows whose bucket is full again are
/// the same as no row and are deleted, at most once a minute per server.
public final class PostgresRequestLimits: RequestLimitStore {
    /// The buckets' shapes, per scope.
    public struct Rules: Sendable, Equatable {
        /// Per API key (`rateLimit`).
        public var apiKey: RequestLimitRule
        /// Failed authentications per client address (`server.failedAuthLimit` over `failedAuthWindowSeconds`).
        public var failedAuthentication: RequestLimitRule

        /// Rules of the two scopes.
        public init(apiKey: RequestLimitRule, failedAuthentication: RequestLimitRule) {
            self.apiKey = apiKey
            self.failedAuthentication = failedAuthentication
        }

        /// The configured limits: `requestsPerSecond` with `burst` per API key (0: off), and
        /// `failedAuthLimit` failures per address refilled over `failedAuthWindowSeconds`.
        public init(requestsPerSecond: Int, burst: Int, failedAuthLimit: Int, failedAuthWindowSeconds: Int) {
            apiKey = RequestLimitRule(capacity: Double(max(1, burst)), perSecond: Double(max(0, requestsPerSecond)))
            failedAuthentication = RequestLimitRule(
                capacity: Double(max(1, failedAuthLimit)), perSecond: Double(max(1, failedAuthLimit)) / Double(max(1, failedAuthWindowSeconds)))
        }

        /// The rule of `scope`.
        public subscript(scope: RequestLimitScope) -> RequestLimitRule {
            switch scope {
            case .apiKey: apiKey
            case .failedAuthentication: failedAuthentication
            }
        }
    }

    /// The table, in migration 3 (`PostgresSchema+Limits.swift`). Unlogged: a bucket is worth
    /// nothing after a crash or a failover (it refills within seconds), so its updates write no WAL,
    /// wait for no fsync and no standby. `fillfactor` leaves room for HOT updates of a bucket's row.
    public static let schema = [
        """
        CREATE UNLOGGED TABLE request_limits (
            scope smallint NOT NULL,
            subject bytea NOT NULL,
            tokens double precision NOT NULL,
            updated_at double precision NOT NULL,
            full_at double precision NOT NULL,
            granted boolean NOT NULL,
            PRIMARY KEY (scope, subject)
        ) WITH (fillfactor = 70)
        """,
    ]

    /// How often one server deletes the buckets that are full again (seconds).
    public static let pruneIntervalSeconds = 60.0

    private let client: PostgresClient
    private let rules: Rules
    private let subjectKey: @Sendable () throws -> SecureBytes
    private let clock: @Sendable () -> Double
    private let logger: Logger
    private let nextPrune = Mutex(0.0)

    /// Limits over the database `client` reaches.
    /// - Parameters:
    ///   - subjectKey: the key of the subjects' MACs, the same on every server
    ///     (``Keyring/requestLimitKey()``).
    ///   - clock: seconds since 1970 (wall time: every server's clock counts; keep them in step with NTP).
    public init(
        client: PostgresClient, rules: Rules, subjectKey: @escaping @Sendable () throws -> SecureBytes,
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }, logger: Logger
    ) {
        self.client = client
        self.rules = rules
        self.subjectKey = subjectKey
        self.clock = clock
        self.logger = logger
    }

    public func take(_ scope: RequestLimitScope, subject: String) async throws -> RequestLimitDecision {
        let rule = rules[scope]
        guard rule.isEnabled else { return .allowed }
        let name = ByteBuffer(bytes: try KeyedHash.blake2b(Array("\(scope.rawValue)\u{0}\(subject)".utf8), key: subjectKey(), length: 16))
        let now = clock()
        let rate = rule.perSecond
        let query = PostgresQuery(unsafeSQL: Self.takeStatement, binds: try Self.binds(now, Int16(Self.code(scope)), name, rule.capacity, rate))
        var decision = RequestLimitDecision.allowed
        // Every request takes a token: prepared once per connection, as the requests' other statements.
        let rows = try await client.withConnection { connection in try await connection.preparedRows(query, logger: self.logger) }
        for row in rows {
            let (granted, tokens) = try row.decode((Bool, Double).self)
            if !granted { decision = .limited(retryAfterSeconds: max(1, Int(((1 - tokens) / rate - 1e-9).rounded(.up)))) }
        }
        try await pruneIfDue(now: now)
        return decision
    }

    /// Deletes buckets that are full again (the same as none), when this server has not for a minute.
    func pruneIfDue(now: Double) async throws {
        let due = nextPrune.withLock { next in
            guard now >= next else { return false }
            next = now + Self.pruneIntervalSeconds
            return true
        }
        guard due else { return }
        try await client.query("DELETE FROM request_limits WHERE full_at < \(now)", logger: logger)
    }

    /// Buckets stored now (for tests and `keys status`-like reports).
    public func bucketCount() async throws -> Int {
        var count = 0
        for try await (n) in try await client.query("SELECT count(*)::bigint AS n FROM request_limits", logger: logger).decode(Int64.self) {
            count = Int(n)
        }
        return count
    }

    /// Takes a token: `$1` now, `$2` scope, `$3` subject MAC, `$4` capacity, `$5` tokens per second.
    /// `r` below is the bucket refilled to now, `least($4, tokens + elapsed * $5)`; the row lock of
    /// the conflicting row orders concurrent takers.
    static let takeStatement: String = {
        let refilled = "least($4, l.tokens + greatest(0, $1 - l.updated_at) * $5)"
        let left = "CASE WHEN \(refilled) >= 1 - 1e-9 THEN greatest(0, \(refilled) - 1) ELSE \(refilled) END"
        return """
            INSERT INTO request_limits AS l (scope, subject, tokens, updated_at, full_at, granted)
            VALUES ($2, $3, $4 - 1, $1, $1 + 1 / $5, true)
            ON CONFLICT (scope, subject) DO UPDATE SET
                granted = \(refilled) >= 1 - 1e-9,
                tokens = \(left),
                updated_at = greatest(l.updated_at, $1),
                full_at = greatest(l.updated_at, $1) + ($4 - \(left)) / $5
            RETURNING granted, tokens
            """
    }()

    /// The scopes' numbers in the table.
    static func code(_ scope: RequestLimitScope) -> Int {
        switch scope {
        case .apiKey: 1
        case .failedAuthentication: 2
        }
    }

    private static func binds(_ now: Double, _ scope: Int16, _ subject: ByteBuffer, _ capacity: Double, _ rate: Double) throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: 5)
        binds.append(now)
        binds.append(scope)
        binds.append(subject)
        binds.append(capacity)
        binds.append(rate)
        return binds
    }
}
