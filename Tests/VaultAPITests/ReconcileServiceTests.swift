import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// `vault serve` runs the reconciler as a background service: its first pass starts with the
/// server, and `/metrics` (on the metrics listener) then exports the gauges an on-call alerts on.
@Suite struct ReconcileServiceTests {
    @Test func theServerRunsTheReconcilerAndExportsItsGauges() async throws {
        let fixture = try await APIFixture()
        try await fixture.servingWithMetrics { _, metrics in
            var text = ""
            for _ in 0..<250 {
                text = try await MetricsListenerTests.get("/metrics", port: metrics)
                if text.contains("vault_transactions_needs_review") { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(text.contains("vault_transactions_in_doubt"))
            #expect(text.contains("vault_transactions_needs_review"))
        }
    }
}
