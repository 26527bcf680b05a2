import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Vault
import Yams
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// The metrics an on-call alerts on: each is on `/metrics` of a serving vault after a charge run,
/// and the suggested alert rules in `docs/alerts.yaml` parse and name only metrics the vault exports.
@Suite struct OnCallMetricsTests {
    static let alertsFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/alerts.yaml")

    @Test func everyOnCallMetricIsScrapedFromTheMetricsListenerAfterAChargeRun() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let card = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("metrics-card", verify: false))
            #expect(card.status == .created, "\(card.text)")
            _ = try await ChargeRunRoutesTests.dueToday(client, fixture, card: "metrics-card", amount: 4200)
            let started = try await client.send(.post, "/v1/charge-runs", key: fixture.runnerA)
            #expect(started.status == .accepted, "\(started.text)")
            let finished = try await ChargeRunPolling.waitForRun(client, key: fixture.runnerA, id: try #require(started.json["id"] as? String))
            #expect(finished["status"] as? String == "completed")
        }
        // What the server's background refresh does every few seconds, once, now.
        OperationsMetricsService.recordBuildInfo()
        try await OperationsMetricsService(store: fixture.runtime.store, logger: fixture.logger).refresh()
        try await fixture.servingWithMetrics { _, metrics in
            // The reconciler's gauges come with its first pass, which the serving application starts.
            var scraped = ""
            for _ in 0..<100 {
                scraped = try await MetricsListenerTests.get("/metrics", port: metrics)
                if scraped.contains("\n\(VaultMetricNames.transactionsNeedsReview) ") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(scraped.hasPrefix("HTTP/1.1 200"))
            for name in VaultMetricNames.all {
                let shown = ["\n\(name){", "\n\(name) ", "\n\(name)_bucket{"].contains { scraped.contains($0) }
                #expect(shown, "\(name) is not on /metrics")
            }
            #expect(scraped.contains("vault_build_info{version=\"\(VaultVersion.current)\"}"))
            let approvedSales = #"vault_gateway_requests_total{gateway="sandbox",operation="sale",outcome="approved"}"#
            #expect(scraped.contains(approvedSales), "charges by gateway and outcome")
        }
    }

    /// The metric names an alert expression uses: identifiers starting `vault_`.
    static func metricNames(in expression: String) -> [String] {
        let pattern = try! Regex("vault_[a-z0-9_]+")
        return expression.matches(of: pattern).map { String(expression[$0.range]) }
    }

    /// A name `/metrics` shows for an exported metric: the name, or a histogram's series.
    static func isExported(_ name: String) -> Bool {
        VaultMetricNames.all.contains(name)
            || ["_bucket", "_sum", "_count"].contains { suffix in
                name.hasSuffix(suffix) && VaultMetricNames.all.contains(String(name.dropLast(suffix.count)))
            }
    }

    @Test func everyAlertRuleParsesAndNamesOnlyMetricsTheVaultExports() throws {
        let text = try String(contentsOf: Self.alertsFile, encoding: .utf8)
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        let groups = try #require(document["groups"] as? [[String: Any]])
        var alerts: [String] = []
        var named: Set<String> = []
        for group in groups {
            #expect(group["name"] is String)
            for rule in try #require(group["rules"] as? [[String: Any]]) {
                let alert = try #require(rule["alert"] as? String)
                let expression = try #require(rule["expr"] as? String, "\(alert) has no expr")
                #expect((rule["annotations"] as? [String: Any])?["summary"] is String, "\(alert) has no summary")
                #expect((rule["labels"] as? [String: Any])?["severity"] is String, "\(alert) has no severity")
                let names = Self.metricNames(in: expression)
                #expect(!names.isEmpty, "\(alert) names no vault metric")
                for name in names { #expect(Self.isExported(name), "\(alert) names \(name), which the vault does not export") }
                named.formUnion(names)
                alerts.append(alert)
            }
        }
        #expect(Set(alerts).count == alerts.count, "alert names are unique")
        #expect(!Self.isExported("vault_no_such_metric"))
        // Every on-call metric has a rule, apart from the build's version (VaultDown uses it) and the
        // per-version key counts (the in-use gauge carries the rule).
        let unused = Set(VaultMetricNames.all).subtracting(named.map { name in
            ["_bucket", "_sum", "_count"].first { name.hasSuffix($0) }.map { String(name.dropLast($0.count)) } ?? name
        })
        let withoutRule = unused.subtracting([VaultMetricNames.masterKeyWrappedKeys, VaultMetricNames.chargeRunSteps])
        #expect(withoutRule.isEmpty, "no alert rule uses \(withoutRule.sorted())")
    }
}
