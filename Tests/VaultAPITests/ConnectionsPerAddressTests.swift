import Foundation
import Testing
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// One client opening connections and sending nothing (so no request limiter ever sees it) used to
/// be able to take every connection slot of the listener. Each client address (IPv6: each /64) may
/// hold `server.maxConnectionsPerAddress`, well below the listener's cap.
@Suite struct ConnectionsPerAddressTests {
    @Test func oneAddressBeyondItsCapIsRefusedWhileAnotherAddressAndTheSameOneAfterClosingAreServed() async throws {
        let fixture = try await ConnectionAttackTests.fixture { server in
            server.maxConnections = 100
            server.maxConnectionsPerAddress = 4
        }
        try await fixture.serving { port in
            // Ten idle connections from one address: no request, nothing for any limiter to count.
            var opened: [RawConnection] = []
            for _ in 0..<10 { opened.append(try await RawConnection.open(port: port)) }
            let flood = opened
            let refusedAll = await RawConnection.poll(within: ConnectionAttackTests.bound) { flood.filter(\.isClosed).count >= 6 }
            #expect(refusedAll, "only \(flood.filter(\.isClosed).count) of 6 connections over the address's cap were refused")
            try await Task.sleep(for: .milliseconds(300))
            let refused = flood.filter(\.isClosed)
            #expect(refused.count == 6, "the cap of 4 let \(10 - refused.count) connections from one address stay")
            for connection in refused {
                #expect(connection.received.hasPrefix("HTTP/1.1 429"), "refusal: \(connection.received.prefix(40))")
                #expect(connection.received.contains("too_many_connections_from_address"))
            }

            // Another client address is served while the first holds its whole share.
            let other = try await RawConnection.open(port: port, from: "127.0.0.2")
            try await other.send(ConnectionAttackTests.get("/v1/secure-cards", key: fixture.adminA))
            #expect(await other.waitForClose(within: ConnectionAttackTests.bound))
            #expect(other.received.hasPrefix("HTTP/1.1 200"), "another address: \(other.received.prefix(40))")

            // The first address, once its connections are closed, is served again.
            for connection in flood { await connection.close() }
            var answer = ""
            let deadline = ContinuousClock.now + ConnectionAttackTests.bound
            while ContinuousClock.now < deadline {
                let client = try await RawConnection.open(port: port)
                try await client.send(ConnectionAttackTests.get("/v1/secure-cards", key: fixture.adminA))
                _ = await client.waitForClose(within: ConnectionAttackTests.bound)
                answer = client.received
                if answer.hasPrefix("HTTP/1.1 200") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(answer.hasPrefix("HTTP/1.1 200"), "after closing: \(answer.prefix(40))")
        }
    }

    @Test func anIPv6ClientIsCountedByItsSlash64AndIPv4MappedAddressesByTheirIPv4Address() {
        let connections = OpenConnections(limit: 100, limitPerAddress: 2)
        let first = connections.admit(address: "2001:db8:1:2::1")
        let second = connections.admit(address: "2001:db8:1:2:ffff::9")
        let third = connections.admit(address: "2001:db8:1:2:abcd::5")
        #expect(first.1 == .admitted && second.1 == .admitted)
        #expect(third.1 == .overAddressCap, "a fresh address in the same /64 is the same client")
        #expect(connections.admit(address: "2001:db8:1:3::1").1 == .admitted, "another /64 is another client")
        #expect(connections.admit(address: "::ffff:192.0.2.7").1 == .admitted)
        #expect(connections.admit(address: "192.0.2.7").1 == .admitted)
        #expect(connections.admit(address: "::ffff:192.0.2.7").1 == .overAddressCap)
        connections.release(third.0)
        connections.release(second.0)
        #expect(connections.current(from: "2001:db8:1:2::77") == 1)
        #expect(connections.admit(address: "2001:db8:1:2::77").1 == .admitted, "a closed connection frees its slot")
        #expect(connections.current == 6)
    }

    @Test func theCapIsConfiguredAndItsDefaultIsWellBelowTheListenersCap() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "server:\n  maxConnectionsPerAddress: 8\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try VaultConfiguration.load(path: path, environment: [:]).server.maxConnectionsPerAddress == 8)
        try "server:\n  maxConnectionsPerAddress: 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try VaultConfiguration.load(path: path, environment: [:]) }
        let defaults = HTTPServerSettings()
        #expect(defaults.maxConnectionsPerAddress * 16 <= defaults.maxConnections)
    }
}
