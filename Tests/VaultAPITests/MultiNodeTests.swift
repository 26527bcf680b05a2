import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultPostgres
@testable import VaultAppTestSupport

/// Several servers over one database: two runtimes, each behind the real listener on a
/// port of its own, as two `vault serve` behind a load balancer.
///
/// On SQLite the two runtimes open one file; in the PostgreSQL pass (the fixture's configuration
/// names a fresh database) they share that database, as servers behind a load balancer do. Only
/// `sharedRequestLimits` names a store.
@Suite struct MultiNodeTests {
    /// The request limits every node of a test holds. SQLite: one in-process store that both
    /// runtimes hold (what the processes of one machine would share); PostgreSQL:
    /// `PostgresRequestLimits` over the fixture's database (what `VaultRuntime.open` gives each
    /// server), its wall clock replaced by `clock`. The clock only moves when a test moves it, so
    /// no bucket refills during a test.
    static func sharedRequestLimits(for runtime: VaultRuntime, clock: ManualClock) -> any RequestLimitStore {
        guard let postgres = runtime.store as? PostgresStore else {
            return InProcessRequestLimits(configuration: runtime.configuration, clock: clock.reading)
        }
        let configuration = runtime.configuration
        let keyring = runtime.keyring
        let start = Date().timeIntervalSince1970
        return PostgresRequestLimits(
            client: postgres.client,
            rules: .init(
                requestsPerSecond: configuration.rateLimit.requestsPerSecond, burst: configuration.rateLimit.burst,
                failedAuthLimit: configuration.server.failedAuthLimit, failedAuthWindowSeconds: configuration.server.failedAuthWindowSeconds),
            subjectKey: { try keyring.requestLimitKey() },
            clock: {
                let elapsed = clock.reading().components
                return start + Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            },
            logger: postgres.logger)
    }

    /// A second server's runtime over the fixture's database and key source, sharing `limits`
    /// with the first; returns both.
    static func twoNodes(_ fixture: APIFixture, limits: (any RequestLimitStore)? = nil) async throws -> [VaultRuntime] {
        var first = fixture.runtime
        var second = try await VaultRuntime.open(configuration: fixture.runtime.configuration, logger: fixture.logger)
        first.requestLimits = limits
        second.requestLimits = limits
        return [first, second]
    }

    @Test func aCardRegisteredOnOneServerIsRetrievedOnTheOther() async throws {
        let fixture = try await APIFixture()
        let nodes = try await Self.twoNodes(fixture)
        defer { nodes[1].close() }
        try await serving(nodes, logger: fixture.logger) { ports in
            let created = try await NodeClient.send(.POST, port: ports[0], "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1"))
            #expect(created.status == 201)
            let token = try #require(created.json["secureCardReference"] as? String)
            let fetched = try await NodeClient.send(.GET, port: ports[1], "/v1/secure-cards/\(token)", key: fixture.adminA)
            #expect(fetched.status == 200)
            #expect(fetched.json["holderName"] as? String == "Ada Lovelace")
            #expect(fetched.json["maskedNumber"] as? String == "424242******4242")
            let byReference = try await NodeClient.send(.GET, port: ports[1], "/v1/secure-cards/cust-1", key: fixture.adminA)
            #expect(byReference.json["secureCardReference"] as? String == token)
            let otherMerchant = try await NodeClient.send(.GET, port: ports[1], "/v1/secure-cards/\(token)", key: fixture.adminB)
            #expect(otherMerchant.status == 404, "scoping holds on the other server too")
        }
    }

    @Test func anIdempotencyKeyUsedOnOneServerReplaysOnTheOtherWithOneCard() async throws {
        let fixture = try await APIFixture()
        let nodes = try await Self.twoNodes(fixture)
        defer { nodes[1].close() }
        try await serving(nodes, logger: fixture.logger) { ports in
            let headers = ["Idempotency-Key": "order-7"]
            let first = try await NodeClient.send(.POST, port: ports[0], "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-7"), headers: headers)
            #expect(first.status == 201)
            #expect(first.headers["Idempotent-Replayed"].isEmpty)
            let replay = try await NodeClient.send(.POST, port: ports[1], "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-7"), headers: headers)
            #expect(replay.status == 201)
            #expect(replay.body == first.body)
            #expect(replay.headers["Idempotent-Replayed"].first == "true")
            let changed = try await NodeClient.send(
                .POST, port: ports[1], "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-8"), headers: headers)
            #expect(changed.status == 422 || changed.status == 409, "the same key with another body is refused on the other server")
            #expect(changed.json["secureCardReference"] == nil)
        }
        #expect(try await fixture.count("secure_cards") == 1)
    }

    @Test func aKeysRateLimitIsSharedAcrossServers() async throws {
        let fixture = try await APIFixture { $0.rateLimit = .init(requestsPerSecond: 1, burst: 4) }
        let clock = ManualClock()
        let nodes = try await Self.twoNodes(fixture, limits: Self.sharedRequestLimits(for: fixture.runtime, clock: clock))
        defer { nodes[1].close() }
        try await serving(nodes, logger: fixture.logger) { ports in
            var statuses: [Int] = []
            for index in 0..<8 {
                statuses.append(try await NodeClient.send(.GET, port: ports[index % 2], "/v1/secure-cards", key: fixture.adminA).status)
            }
            #expect(statuses == [200, 200, 200, 200, 429, 429, 429, 429], "the burst of 4 is spent across both servers, as on one")
            let limited = try await NodeClient.send(.GET, port: ports[0], "/v1/secure-cards", key: fixture.adminA)
            #expect(limited.headers["Retry-After"].first == "1")
            #expect(try await NodeClient.send(.GET, port: ports[1], "/v1/secure-cards", key: fixture.adminB).status == 200, "another key has its own budget")
            clock.advance(by: .seconds(1))
            #expect(try await NodeClient.send(.GET, port: ports[1], "/v1/secure-cards", key: fixture.adminA).status == 200)
            #expect(try await NodeClient.send(.GET, port: ports[0], "/v1/secure-cards", key: fixture.adminA).status == 429)
        }
    }

    @Test func theSameRequestsOnOneServerHitTheLimitAtTheSameCount() async throws {
        let fixture = try await APIFixture { $0.rateLimit = .init(requestsPerSecond: 1, burst: 4) }
        let nodes = try await Self.twoNodes(fixture, limits: Self.sharedRequestLimits(for: fixture.runtime, clock: ManualClock()))
        defer { nodes[1].close() }
        try await serving([nodes[0]], logger: fixture.logger) { ports in
            var statuses: [Int] = []
            for _ in 0..<8 { statuses.append(try await NodeClient.send(.GET, port: ports[0], "/v1/secure-cards", key: fixture.adminA).status) }
            #expect(statuses == [200, 200, 200, 200, 429, 429, 429, 429])
        }
    }

    @Test func failedAuthenticationsOnOneServerLockTheAddressOutOfTheOther() async throws {
        let fixture = try await APIFixture {
            $0.server.failedAuthLimit = 3
            $0.server.failedAuthWindowSeconds = 60
        }
        let nodes = try await Self.twoNodes(fixture, limits: Self.sharedRequestLimits(for: fixture.runtime, clock: ManualClock()))
        defer { nodes[1].close() }
        try await serving(nodes, logger: fixture.logger) { ports in
            let wrong = "vk_AAAAAAAAAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
            for _ in 0..<3 {
                #expect(try await NodeClient.send(.GET, port: ports[0], "/v1/secure-cards", key: wrong).status == 401)
            }
            let locked = try await NodeClient.send(.GET, port: ports[1], "/v1/secure-cards", key: wrong)
            #expect(locked.status == 429)
            #expect(locked.json["error"].flatMap { ($0 as? [String: Any])?["code"] as? String } == "too_many_failed_authentications")
            #expect(try await NodeClient.send(.GET, port: ports[1], "/v1/secure-cards", key: fixture.adminA).status == 200, "a valid key is never refused by it")
        }
    }

    /// What `vault serve` does on PostgreSQL with no wiring: each runtime `VaultRuntime.open` gives
    /// holds `PostgresRequestLimits` over the database, so an address locked out on one server is
    /// locked out on the other (the window is an hour, so nothing refills during the test).
    @Test(.enabled(if: TestEngine.current == .postgres, "SQLite servers count in their own process (one machine)"))
    func serversOpenedOnOnePostgreSQLDatabaseShareTheFailedAuthenticationLimitOnTheirOwn() async throws {
        let fixture = try await APIFixture {
            $0.server.failedAuthLimit = 3
            $0.server.failedAuthWindowSeconds = 3600
        }
        let second = try await VaultRuntime.open(configuration: fixture.runtime.configuration, logger: fixture.logger)
        defer { second.close() }
        #expect(fixture.runtime.requestLimits is PostgresRequestLimits)
        #expect(second.requestLimits is PostgresRequestLimits)
        try await serving([fixture.runtime, second], logger: fixture.logger) { ports in
            let wrong = "vk_AAAAAAAAAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
            for index in 0..<3 {
                #expect(try await NodeClient.send(.GET, port: ports[index % 2], "/v1/secure-cards", key: wrong).status == 401)
            }
            let locked = try await NodeClient.send(.GET, port: ports[1], "/v1/secure-cards", key: wrong)
            #expect(locked.status == 429)
            #expect(try await NodeClient.send(.GET, port: ports[0], "/v1/secure-cards", key: wrong).status == 429)
            #expect(try await NodeClient.send(.GET, port: ports[1], "/v1/secure-cards", key: fixture.adminA).status == 200)
        }
    }

    @Test func withoutASharedStoreEachServerCountsOnItsOwn() async throws {
        // What the shared store changes: per-process limits let twice the burst through two servers.
        let fixture = try await APIFixture { $0.rateLimit = .init(requestsPerSecond: 1, burst: 4) }
        let nodes = try await Self.twoNodes(fixture)
        defer { nodes[1].close() }
        try await serving(nodes, logger: fixture.logger) { ports in
            var allowed = 0
            for index in 0..<8 where try await NodeClient.send(.GET, port: ports[index % 2], "/v1/secure-cards", key: fixture.adminA).status == 200 {
                allowed += 1
            }
            #expect(allowed == 8)
        }
    }

    /// Runs `body` with each runtime behind the real application on a loopback port of its own.
    func serving(_ runtimes: [VaultRuntime], logger: Logger, _ body: @escaping @Sendable ([Int]) async throws -> Void) async throws {
        var streams: [AsyncStream<Int>] = []
        var services: [any Service] = []
        for runtime in runtimes {
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            streams.append(ports)
            services.append(try buildApplication(runtime: runtime, logger: logger) { port in continuation.yield(port) })
        }
        let group = ServiceGroup(configuration: .init(services: services, logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var ports: [Int] = []
            for stream in streams {
                var iterator = stream.makeAsyncIterator()
                guard let port = await iterator.next() else { return }
                ports.append(port)
            }
            do {
                try await body(ports)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}

/// Requests to one server of several, over a real connection.
enum NodeClient {
    struct Response {
        let status: Int
        let headers: HTTPHeaders
        let body: String

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
    }

    static func send(
        _ method: HTTPMethod, port: Int, _ path: String, key: String?, json: String? = nil, headers: [String: String] = [:]
    ) async throws -> Response {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return Response(status: Int(response.status.code), headers: response.headers, body: String(buffer: body))
    }
}
