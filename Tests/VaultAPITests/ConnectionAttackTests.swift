import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// Slow, idle and flooding clients against a real listener on a loopback port,
/// over raw TCP. Timeouts are set to 1 s here; closures are asserted within generous bounds (45 s: a
/// PostgreSQL pass runs every suite at once on two cores, and once a silent connection outlived 10 s),
/// never to the millisecond.
@Suite struct ConnectionAttackTests {
    static let bound = Duration.seconds(45)

    /// A fixture whose listener uses `configure`'s timeouts (120 s for any left alone, well past
    /// ``bound``, so the one under test is the one that acts).
    static func fixture(_ configure: @escaping (inout VaultConfiguration.Server) -> Void) async throws -> APIFixture {
        try await APIFixture { configuration in
            configuration.server.headerReadTimeoutSeconds = 120
            configuration.server.bodyReadTimeoutSeconds = 120
            configuration.server.idleTimeoutSeconds = 120
            configure(&configuration.server)
        }
    }

    static func get(_ path: String, key: String?, close: Bool = true) -> String {
        "GET \(path) HTTP/1.1\r\nHost: vault\r\n" + (key.map { "Authorization: Bearer \($0)\r\n" } ?? "")
            + (close ? "Connection: close\r\n" : "") + "\r\n"
    }

    @Test func halfSentHeadersAreClosedWithinTheHeaderTimeout() async throws {
        let fixture = try await Self.fixture { $0.headerReadTimeoutSeconds = 1 }
        try await fixture.serving { port in
            var connections: [RawConnection] = []
            for _ in 0..<50 {
                let connection = try await RawConnection.open(port: port)
                try await connection.send("POST /v1/secure-cards HTTP/1.1\r\nHost: vault\r\nContent-Type: appl")
                connections.append(connection)
            }
            for (index, connection) in connections.enumerated() {
                #expect(await connection.waitForClose(within: Self.bound), "half-sent head \(index) still open")
            }
        }
    }

    @Test func aHeadTrickledByteByByteIsClosedAnyway() async throws {
        let fixture = try await Self.fixture { $0.headerReadTimeoutSeconds = 1 }
        try await fixture.serving { port in
            let connection = try await RawConnection.open(port: port)
            let head = Array("GET /v1/secure-cards HTTP/1.1\r\nHost: vault\r\nX-Pad: " + String(repeating: "a", count: 200))
            var sent = 0
            let deadline = ContinuousClock.now + Self.bound
            while !connection.isClosed, ContinuousClock.now < deadline, sent < head.count {
                try? await connection.send(String(head[sent]))
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(await connection.waitForClose(within: .seconds(1)), "a head sent one byte every 100 ms was never cut off")
            #expect(sent < head.count)
        }
    }

    @Test func anOversizedHeadIsRefusedAndTheConnectionClosed() async throws {
        let fixture = try await Self.fixture { _ in }
        try await fixture.serving { port in
            let connection = try await RawConnection.open(port: port)
            let padding = (0..<40).map { "X-Pad-\($0): " + String(repeating: "a", count: 500) + "\r\n" }.joined()
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: vault\r\n" + padding + "\r\n")
            #expect(await connection.waitForClose(within: Self.bound))
            #expect(connection.received.hasPrefix("HTTP/1.1 400"), "\(connection.received.prefix(40))")
        }
    }

    @Test func idleConnectionsAreClosedWithinTheIdleTimeoutBeforeAndAfterARequest() async throws {
        let fixture = try await Self.fixture { $0.idleTimeoutSeconds = 2 }
        try await fixture.serving { port in
            let silent = try await RawConnection.open(port: port)
            let keptAlive = try await RawConnection.open(port: port)
            try await keptAlive.send(Self.get("/healthz", key: nil, close: false))
            #expect(await silent.waitForClose(within: Self.bound), "a connection that never sent a byte stayed open")
            #expect(await keptAlive.waitForClose(within: Self.bound), "an idle keep-alive connection stayed open")
            // On a loaded machine the request may come after the idle timeout already closed the
            // connection (nothing received): that is the rule too, so only an answer is checked.
            #expect(keptAlive.received.isEmpty || keptAlive.received.hasPrefix("HTTP/1.1 200"), "\(keptAlive.received.prefix(40))")
        }
    }

    @Test func connectionsBeyondTheCapAreRefusedAndTheListenerKeepsServing() async throws {
        let fixture = try await Self.fixture { $0.maxConnections = 10 }
        try await fixture.serving { port in
            var opened: [RawConnection] = []
            for _ in 0..<25 { opened.append(try await RawConnection.open(port: port)) }
            let flood = opened
            let refusedAll = await RawConnection.poll(within: Self.bound) { flood.filter(\.isClosed).count >= 15 }
            #expect(refusedAll, "only \(flood.filter(\.isClosed).count) of 15 connections over the cap were refused")
            try await Task.sleep(for: .milliseconds(300))
            let refused = flood.filter(\.isClosed)
            #expect(refused.count == 15, "the cap of 10 let \(25 - refused.count) connections stay")
            for connection in refused {
                #expect(connection.received.hasPrefix("HTTP/1.1 503"), "refusal: \(connection.received.prefix(40))")
                #expect(connection.received.contains("too_many_connections"))
            }
            // While the flood holds every slot, a new client is refused too, quickly.
            let turnedAway = try await RawConnection.open(port: port)
            #expect(await turnedAway.waitForClose(within: Self.bound))
            for connection in flood { await connection.close() }
            // The flood is over: an authenticated request on a fresh connection is served.
            var answer = ""
            let deadline = ContinuousClock.now + Self.bound
            while ContinuousClock.now < deadline {
                let client = try await RawConnection.open(port: port)
                try await client.send(Self.get("/v1/secure-cards", key: fixture.adminA))
                _ = await client.waitForClose(within: Self.bound)
                answer = client.received
                if answer.hasPrefix("HTTP/1.1 200") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(answer.hasPrefix("HTTP/1.1 200"), "after the flood: \(answer.prefix(40))")
        }
    }

    @Test func anUnauthenticatedBodyIsAnswered401WithoutBeingReadAndTheConnectionCloses() async throws {
        let fixture = try await Self.fixture { _ in }
        try await fixture.serving { port in
            let connection = try await RawConnection.open(port: port)
            // A 500 kB body is announced and never sent: a server that read bodies before
            // authenticating would wait for it (120 s body timeout here) instead of answering.
            try await connection.send(
                "POST /v1/secure-cards HTTP/1.1\r\nHost: vault\r\nContent-Type: application/json\r\nContent-Length: 500000\r\n\r\n{\"merchant")
            #expect(await connection.waitForClose(within: Self.bound), "the connection stayed open after the 401")
            #expect(connection.received.hasPrefix("HTTP/1.1 401"), "\(connection.received.prefix(40))")
            #expect(connection.received.lowercased().contains("connection: close"))
        }
        #expect(try await fixture.count("secure_cards") == 0)
    }

    @Test func aTrickledBodyIsCutOffAtTheBodyTimeout() async throws {
        let fixture = try await Self.fixture { $0.bodyReadTimeoutSeconds = 1 }
        try await fixture.serving { port in
            let connection = try await RawConnection.open(port: port)
            try await connection.send(
                "POST /v1/secure-cards HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(fixture.adminA)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
            var sent = 0
            let deadline = ContinuousClock.now + Self.bound
            while !connection.isClosed, ContinuousClock.now < deadline, sent < 1000 {
                try? await connection.send(" ")
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(await connection.waitForClose(within: .seconds(1)), "a body sent one byte every 100 ms was never cut off")
            #expect(sent < 1000)
            #expect(!connection.received.hasPrefix("HTTP/1.1 2"))
        }
        #expect(try await fixture.count("secure_cards") == 0)
    }

    @Test func connectionCloseWithAnOversizedBodyGets413AndTheEndOfTheStream() async throws {
        let fixture = try await Self.fixture { $0.maxBodyBytes = 4096 }
        try await fixture.serving { port in
            let connection = try await RawConnection.open(port: port)
            let size = 32 << 20
            try await connection.send(
                "POST /v1/secure-cards HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(fixture.adminA)\r\nConnection: close\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(size)\r\n\r\n")
            // Like a simple client, send the whole body before reading: more than the socket
            // buffers hold, so it only gets through if the server keeps reading after its 413.
            let body = ByteBuffer(repeating: UInt8(ascii: " "), count: size)
            #expect(await connection.send(body, within: Self.bound), "the body could not be sent: the server stopped reading")
            #expect(await connection.waitForClose(within: Self.bound), "no end of stream after the 413")
            #expect(connection.received.hasPrefix("HTTP/1.1 413"), "\(connection.received.prefix(40))")
        }
    }

    @Test func aKeepAliveRequestAnsweredBeforeItsBodyEndsClosesTheConnection() async throws {
        let fixture = try await Self.fixture { $0.maxBodyBytes = 4096 }
        try await fixture.serving { port in
            let connection = try await RawConnection.open(port: port)
            // The body's bytes must never be taken for a second request.
            let smuggled = Self.get("/v1/secure-cards", key: fixture.adminA, close: false)
            try await connection.send(
                "POST /v1/secure-cards HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(fixture.adminA)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n" + smuggled)
            #expect(await connection.waitForClose(within: Self.bound))
            #expect(connection.received.hasPrefix("HTTP/1.1 413"), "\(connection.received.prefix(40))")
            #expect(connection.received.components(separatedBy: "HTTP/1.1 ").count == 2, "a second response came back")
        }
    }

    @Test func repeatedBadKeysFromOneAddressGet429WithRetryAfterWhileAValidKeyStillGets200() async throws {
        let fixture = try await APIFixture {
            $0.server.failedAuthLimit = 5
            $0.server.failedAuthWindowSeconds = 600
        }
        try await fixture.live { client in
            let wrong = "vk_aaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
            for attempt in 0..<5 {
                let response = try await client.send(.get, "/v1/secure-cards", key: wrong)
                #expect(response.status == .unauthorized, "attempt \(attempt)")
            }
            let limited = try await client.send(.get, "/v1/secure-cards", key: wrong)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.error["code"] as? String == "too_many_failed_authentications")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 >= 1)
            #expect(try await client.send(.get, "/v1/secure-cards", key: nil).status == .tooManyRequests)
            for _ in 0..<20 {
                #expect(try await client.send(.get, "/v1/secure-cards", key: fixture.adminA).status == .ok)
            }
            #expect(try await client.send(.get, "/v1/secure-cards", key: wrong).status == .tooManyRequests)
        }
    }
}
