import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import Logging
import Prometheus
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// `/metrics` counts each request under the status the client was sent, the one
/// the access log records (a 422 card registration used to be counted as a 500).
@Suite struct RequestMetricsTests {
    /// `hb_requests` per (method, status), from the Prometheus text.
    private static func counts(_ text: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("hb_requests{") || line.hasPrefix("hb_requests_total{") {
            guard let close = line.lastIndex(of: "}"), let value = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces))
            else { continue }
            let labels = line[line.index(after: line.firstIndex(of: "{")!)..<close]
            func label(_ name: String) -> String {
                guard let range = labels.range(of: "\(name)=\"") else { return "?" }
                return String(labels[range.upperBound...].prefix { $0 != "\"" })
            }
            counts["\(label("http_request_method")) \(label("http_response_status_code"))", default: 0] += Int(value)
        }
        return counts
    }

    @Test func metricsCountTheStatusesTheAccessLogRecordsFor2xx4xxAnd5xx() async throws {
        let fixture = try await APIFixture()
        let registry = PrometheusCollectorRegistry()
        let app = Application(router: buildRouter(runtime: fixture.runtime, metricsRegistry: registry), logger: fixture.logger)
        try await app.test(.router) { client in
            let admin = fixture.adminA
            try await client.send(.get, "/healthz", key: nil)                                                  // 200
            try await client.send(.post, "/v1/secure-cards", key: admin, json: keyedCard("cust-1"))           // 201
            try await client.send(.post, "/v1/secure-cards", key: admin, json: keyedCard("cust-2", number: "4242424242424241"))  // 422 (Luhn)
            try await client.send(.post, "/v1/secure-cards", key: admin, json: keyedCard("bad ref"))          // 422
            try await client.send(.post, "/v1/secure-cards", key: admin, json: keyedCard("cust-1"))           // 409
            try await client.send(.get, "/v1/transactions?stauts=declined", key: admin)                       // 400
            try await client.send(.get, "/v1/secure-cards/nobody", key: admin)                                // 404
            try await client.send(.get, "/v1/secure-cards", key: nil)                                         // 401
            try await client.send(.post, "/v1/secure-cards", key: fixture.readonlyA, json: keyedCard("x"))    // 403
            try await client.send(.delete, "/healthz", key: nil)                                              // 405
            try await client.send(.get, "/nowhere", key: nil)                                                 // 404
            fixture.runtime.close()
            try await client.send(.get, "/readyz", key: nil)                                                  // 503
            try await client.send(.get, "/v1/secure-cards/cust-1", key: admin)                                // 5xx
        }
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        let text = String(decoding: buffer, as: UTF8.self)
        let metrics = Self.counts(text)
        #expect(!metrics.isEmpty, "no request counts in \(text.prefix(2000))")

        var logged: [String: Int] = [:]
        for entry in fixture.logs.entries where entry.message.description == "request" {
            let method = entry.metadata["method"]?.description ?? "?"
            let status = entry.metadata["status"]?.description ?? "?"
            logged["\(method) \(status)", default: 0] += 1
        }
        #expect(logged.values.reduce(0, +) == 13)
        #expect(metrics == logged, "metrics \(metrics.sorted { $0.key < $1.key }) vs access log \(logged.sorted { $0.key < $1.key })")
        let statuses = Set(logged.keys.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } })
        #expect(statuses.contains { (200..<300).contains($0) } && statuses.contains(422) && statuses.contains { $0 >= 500 })
        #expect(metrics["POST 422"] == 2, "a refused registration is a 422, not a 500")
    }
}
