import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let elapsed = Mutex(Duration.zero)

    func advance(by duration: Duration) { elapsed.withLock { $0 += duration } }

    var reading: @Sendable () -> Duration { { self.elapsed.withLock { $0 } } }
}

/// A flag set from a `@Sendable` closure.
final class Flag: Sendable {
    private let value = Mutex(false)

    func raise() { value.withLock { $0 = true } }

    var isRaised: Bool { value.withLock { $0 } }
}

/// Rate limits, request timeouts and a barrage of broken requests.
@Suite struct LimitsTests {
    @Test func aBucketAllowsTheBurstThenRefillsAtTheSustainedRate() {
        let clock = ManualClock()
        let limiter = RateLimiter(requestsPerSecond: 1, burst: 2, clock: clock.reading)
        #expect(limiter.acquire(key: "k") == .allowed)
        #expect(limiter.acquire(key: "k") == .allowed)
        #expect(limiter.acquire(key: "k") == .limited(retryAfterSeconds: 1))
        #expect(limiter.acquire(key: "other") == .allowed)
        clock.advance(by: .milliseconds(500))
        #expect(limiter.acquire(key: "k") == .limited(retryAfterSeconds: 1))
        clock.advance(by: .milliseconds(500))
        #expect(limiter.acquire(key: "k") == .allowed)
        #expect(limiter.acquire(key: "k") == .limited(retryAfterSeconds: 1))
        clock.advance(by: .seconds(3600))
        #expect(limiter.acquire(key: "k") == .allowed)
        #expect(limiter.acquire(key: "k") == .allowed)
        #expect(limiter.acquire(key: "k") == .limited(retryAfterSeconds: 1), "the bucket refills up to the burst only")
    }

    @Test func retryAfterIsTheWholeSecondsUntilTheNextToken() {
        let clock = ManualClock()
        let slow = RateLimiter(requestsPerSecond: 1, burst: 1, clock: clock.reading)
        #expect(slow.acquire(key: "k") == .allowed)
        #expect(slow.acquire(key: "k") == .limited(retryAfterSeconds: 1))
        let fast = RateLimiter(requestsPerSecond: 100, burst: 200, clock: clock.reading)
        for _ in 0..<200 { #expect(fast.acquire(key: "k") == .allowed) }
        #expect(fast.acquire(key: "k") == .limited(retryAfterSeconds: 1))
        clock.advance(by: .milliseconds(10))
        #expect(fast.acquire(key: "k") == .allowed)
        let off = RateLimiter(requestsPerSecond: 0, burst: 1, clock: clock.reading)
        #expect(!off.isEnabled)
        for _ in 0..<1000 { #expect(off.acquire(key: "k") == .allowed) }
    }

    @Test func manyKeysArePrunedOnceTheirBucketsAreFullAgain() {
        let clock = ManualClock()
        let limiter = RateLimiter(requestsPerSecond: 10, burst: 5, clock: clock.reading)
        for index in 0..<(RateLimiter.pruneThreshold + 10) { _ = limiter.acquire(key: "key-\(index)") }
        #expect(limiter.acquire(key: "key-0") == .allowed)
        clock.advance(by: .seconds(1))
        for index in 0..<(RateLimiter.pruneThreshold + 10) { #expect(limiter.acquire(key: "key-\(index)") == .allowed) }
    }

    @Test func theConfiguredLimitAnswers429WithRetryAfterPerKey() async throws {
        let fixture = try await APIFixture { $0.rateLimit = .init(requestsPerSecond: 1, burst: 2) }
        let clock = ManualClock()
        let limiter = RateLimiter(configuration: fixture.runtime.configuration.rateLimit, clock: clock.reading)
        let app = Application(router: buildRouter(runtime: fixture.runtime, rateLimiter: limiter), logger: fixture.logger)
        try await app.test(.router) { client in
            #expect(try await client.send(.get, "/v1/transactions", key: fixture.adminA).status == .ok)
            #expect(try await client.send(.get, "/v1/secure-cards", key: fixture.adminA).status == .ok)
            let limited = try await client.send(.get, "/v1/transactions", key: fixture.adminA)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] == "1")
            #expect(limited.error["type"] as? String == "rate_limit_error")
            #expect(limited.error["code"] as? String == "rate_limited")
            #expect(limited.headers[HTTPField.Name("X-Request-Id")!] != nil)
            #expect(try await client.send(.get, "/v1/transactions", key: fixture.adminB).status == .ok, "another key has its own bucket")
            #expect(try await client.send(.get, "/healthz", key: nil).status == .ok, "operational routes are not limited")
            clock.advance(by: .seconds(1))
            #expect(try await client.send(.get, "/v1/transactions", key: fixture.adminA).status == .ok)
            #expect(try await client.send(.get, "/v1/transactions", key: fixture.adminA).status == .tooManyRequests)
        }
    }

    @Test func theRateLimitSectionIsReadAndChecked() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "rateLimit:\n  requestsPerSecond: 5\n  burst: 7\n".write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try VaultConfiguration.load(path: path, environment: [:])
        #expect(loaded.rateLimit == .init(requestsPerSecond: 5, burst: 7))
        #expect(VaultConfiguration().rateLimit == .init(requestsPerSecond: 1000, burst: 2000))
        for (text, key) in [("rateLimit:\n  burst: 0\n", "rateLimit.burst"), ("rateLimit:\n  perMinute: 3\n", "rateLimit.perMinute"),
                            ("rateLimit:\n  requestsPerSecond: -1\n", "rateLimit.requestsPerSecond")] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let error = #expect(throws: ConfigurationError.self) { try VaultConfiguration.load(path: path, environment: [:]) }
            #expect(error?.key == key)
        }
    }

    @Test func everyAPIOperationDocuments429And503() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIController.json)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var checked = 0
        for (path, item) in paths where path.hasPrefix("/v1/") {
            for (method, operation) in item where method != "parameters" {
                let responses = (operation as? [String: Any])?["responses"] as? [String: Any] ?? [:]
                #expect(responses["429"] != nil && responses["503"] != nil, "\(method.uppercased()) \(path)")
                checked += 1
            }
        }
        #expect(checked >= 25)
    }

    /// A router with only the envelope and the timeout middleware, whose timer is injected.
    static func timeoutApp(timerFires: Bool, route: @escaping @Sendable () async throws -> String) -> some ApplicationProtocol {
        let router = Router(context: VaultRequestContext.self)
        router.add(middleware: ErrorEnvelopeMiddleware())
        router.add(
            middleware: RequestTimeoutMiddleware<VaultRequestContext>(timeout: .seconds(30)) { _ in
                // Either "the time is up" at once, or a timer that only ends when cancelled.
                if !timerFires { try await Task.sleep(for: .seconds(86_400)) }
            })
        router.get("work") { _, _ in try await route() }
        var logger = Logger(label: "limits-test")
        logger.logLevel = .error
        return Application(router: router, logger: logger)
    }

    @Test func aHandlerRunningPastTheTimeoutIsStoppedWith503() async throws {
        let cancelled = Flag()
        let app = Self.timeoutApp(timerFires: true) {
            do {
                try await Task.sleep(for: .seconds(86_400))
            } catch {
                cancelled.raise()
                throw error
            }
            return "late"
        }
        try await app.test(.router) { client in
            let response = try await client.send(.get, "/work", key: nil)
            #expect(response.status == .serviceUnavailable)
            #expect(response.error["code"] as? String == "request_timeout")
            #expect(response.error["type"] as? String == "api_error")
        }
        #expect(cancelled.isRaised, "the handler was cancelled")
    }

    @Test func handlersWithinTheTimeoutAndHandlersThatFinishAnywayAnswerThemselves() async throws {
        try await Self.timeoutApp(timerFires: false) { "done" }.test(.router) { client in
            let response = try await client.send(.get, "/work", key: nil)
            #expect(response.status == .ok && response.text == "done")
        }
        try await Self.timeoutApp(timerFires: false) { throw APIError.invalid("no", code: "x", param: "p") }.test(.router) { client in
            let response = try await client.send(.get, "/work", key: nil)
            #expect(response.status == .unprocessableContent)
        }
        let finishedAnyway = Self.timeoutApp(timerFires: true) {
            // Work that cannot be interrupted: its outcome stands and is answered.
            _ = try? await Task.sleep(for: .seconds(86_400))
            return "committed"
        }
        try await finishedAnyway.test(.router) { client in
            let response = try await client.send(.get, "/work", key: nil)
            #expect(response.status == .ok && response.text == "committed")
        }
    }

    /// Kinds of broken request: (body bytes, content type, path).
    static let brokenRequests: [([UInt8], String, String)] = {
        let json = "application/json"
        var kinds: [([UInt8], String, String)] = [
            (Array("{".utf8), json, "/v1/secure-cards"),
            (Array("not json at all".utf8), json, "/v1/secure-cards"),
            ([0xFF, 0xFE, 0x7B, 0x22, 0xC3, 0x28, 0x22, 0x7D], json, "/v1/secure-cards"),
            (Array("[]".utf8), json, "/v1/secure-cards"),
            (Array("null".utf8), json, "/v1/secure-cards"),
            (Array(#"{"merchantReference": 5}"#.utf8), json, "/v1/secure-cards"),
            (Array(#"{"merchantReference": "x", "method": "keyed", "card": {"number": 4242424242424242, "expiryDate": "1230"}}"#.utf8), json,
             "/v1/secure-cards"),
            (Array(String(repeating: "[", count: 3000).utf8), json, "/v1/secure-cards"),
            (Array(#"{"merchantReference": "ok"}"#.utf8), "text/plain", "/v1/secure-cards"),
            (Array(repeating: UInt8(ascii: "a"), count: 5000), json, "/v1/secure-cards"),
            ([], json, "/v1/secure-cards"),
            (Array(#"{"type": "sale", "amount": "ten", "currency": "USD"}"#.utf8), json, "/v1/transactions"),
            (Array(#"{"type": "sale", "amount": 1e400}"#.utf8), json, "/v1/transactions"),
            (Array("{\"merchantReference\": \"a\u{0}b\", \"method\": \"keyed\"}".utf8), json, "/v1/secure-cards"),
            (Array(#"{"plan": {"type": "monthly"}, "amount": -5}"#.utf8), json, "/v1/schedules"),
        ]
        kinds.append((Array(String(repeating: #"{"a":"#, count: 800).utf8), json, "/v1/schedules"))
        return kinds
    }()

    @Test func aThousandBrokenRequestsInARowLeaveTheServerUpAndCorrect() async throws {
        let fixture = try await APIFixture {
            $0.rateLimit.requestsPerSecond = 0
            $0.server.maxBodyBytes = 4096
        }
        try await fixture.live { client in
            var statuses: [Int: Int] = [:]
            for index in 0..<1000 {
                let (body, contentType, path) = Self.brokenRequests[index % Self.brokenRequests.count]
                var headers: HTTPFields = [.authorization: "Bearer \(fixture.adminA)", .contentType: contentType]
                headers[HTTPField.Name("Idempotency-Key")!] = index % 7 == 0 ? "broken-\(index)" : nil
                let response = try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(bytes: body)) { $0 }
                statuses[Int(response.status.code), default: 0] += 1
                #expect((400..<500).contains(response.status.code), "request \(index) to \(path) answered \(response.status.code)")
                #expect(response.error["type"] is String, "request \(index) has no error envelope")
            }
            #expect(Set(statuses.keys).isSuperset(of: [400, 413, 415, 422]), "\(statuses)")
            let good = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("after-the-storm", verify: false))
            #expect(good.status == .created, "\(good.text)")
            #expect(try await client.send(.get, "/v1/secure-cards/after-the-storm", key: fixture.readonlyA).status == .ok)
            #expect(try await client.send(.get, "/readyz", key: nil).status == .ok)
        }
        #expect(try await fixture.count("secure_cards") == 1)
        #expect(try await fixture.count("transactions") == 0)
        #expect(try await fixture.count("schedules") == 0)
        #expect(!fixture.logText.contains("4242424242424242"), "a card number reached the log")
    }
}
