import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Scheduler
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp

/// Waiting for a charge run started over HTTP.
enum ChargeRunPolling {
    /// Polls the run until it is no longer `running` (10 s at most) and returns its JSON.
    static func waitForRun(_ client: any TestClientProtocol, key: String, id: String) async throws -> [String: Any] {
        for _ in 0..<200 {
            let run = try await client.send(.get, "/v1/charge-runs/\(id)", key: key)
            if run.json["status"] as? String != "running" { return run.json }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the charge run did not finish")
        return [:]
    }
}
