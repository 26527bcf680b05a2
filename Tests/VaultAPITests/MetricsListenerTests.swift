import Foundation
import Testing
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// `/metrics` counts every merchant's sales, refunds and declines. It used to be served on the API
/// listener to anyone; it has its own listener, on loopback by default.
@Suite struct MetricsListenerTests {
    /// `GET path` over a raw connection to `port`; what came back.
    static func get(_ path: String, port: Int, key: String? = nil) async throws -> String {
        let connection = try await RawConnection.open(port: port)
        try await connection.send(ConnectionAttackTests.get(path, key: key))
        _ = await connection.waitForClose(within: ConnectionAttackTests.bound)
        await connection.close()
        return connection.received
    }

    @Test func theAPIListenerDoesNotServeMetricsWhichHaveTheirOwnListener() async throws {
        let fixture = try await APIFixture()
        try await fixture.servingWithMetrics { api, metrics in
            #expect(api != metrics)
            #expect(try await Self.get("/v1/secure-cards", port: api, key: fixture.adminA).hasPrefix("HTTP/1.1 200"))
            for key in [nil, fixture.adminA, fixture.adminB] {
                let answer = try await Self.get("/metrics", port: api, key: key)
                #expect(answer.hasPrefix("HTTP/1.1 404"), "\(answer.prefix(40))")
                #expect(!answer.contains("hb_requests"))
            }
            let scraped = try await Self.get("/metrics", port: metrics)
            #expect(scraped.hasPrefix("HTTP/1.1 200"), "\(scraped.prefix(40))")
            #expect(scraped.contains("hb_requests"))
            // The metrics listener serves nothing else.
            #expect(try await Self.get("/v1/secure-cards", port: metrics, key: fixture.adminA).hasPrefix("HTTP/1.1 404"))
        }
    }

    @Test func theMetricsListenerIsOnLoopbackByDefaultAndConfigured() throws {
        #expect(VaultHTTPServer.isLoopback(host: MetricsSettings().host))
        #expect(MetricsSettings().enabled)
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "metrics:\n  host: 127.0.0.9\n  port: 9999\n  enabled: false\n".write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try VaultConfiguration.load(path: path, environment: ["VAULT_METRICS_PORT": "9100"])
        #expect(loaded.metrics.host == "127.0.0.9")
        #expect(loaded.metrics.port == 9100)
        #expect(!loaded.metrics.enabled)
        try "metrics:\n  path: /metrics\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try VaultConfiguration.load(path: path, environment: [:]) }
    }
}
