import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Payments
import Scheduler
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// The default set-up's sandbox is one ledger for every process on the database: what the charge
/// runner charged in its own process is refunded, voided and looked up by the server.
@Suite struct SandboxLedgerRoutesTests {
    @Test func aChargeMadeByTheRunnerInAnotherProcessIsRefundedOverTheAPI() async throws {
        let fixture = try await APIFixture()
        // What `vault charge run` opens: its own runtime, with its own sandbox, over the same database.
        let runner = try await VaultRuntime.open(configuration: fixture.runtime.configuration, logger: fixture.logger)
        defer { runner.close() }
        #expect(runner.gateways.sandbox !== fixture.runtime.gateways.sandbox)
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("subscriber", verify: false))
            let schedule = try await ChargeRunRoutesTests.dueToday(client, fixture, card: "subscriber", amount: 4200)
            let summary = try await runner.chargeRunner(logger: fixture.logger).run(runner.chargeRunOptions(asOf: Date()))
            #expect(summary.settled)

            let steps = try await client.send(.get, "/v1/schedules/\(schedule)/steps", key: fixture.adminA)
            let step = try #require((steps.json["data"] as? [[String: Any]])?.first)
            let charge = try #require((step["transactions"] as? [[String: Any]])?.first)
            #expect(charge["status"] as? String == "approved")
            let chargeID = try #require(charge["id"] as? String)

            let refund = try await client.send(.post, "/v1/transactions/\(chargeID)/refund", key: fixture.adminA, json: #"{"amount": 1000}"#)
            #expect(refund.status.code / 100 == 2, "\(refund.text)")
            #expect(refund.json["status"] as? String == "approved")
            let rest = try await client.send(.post, "/v1/transactions/\(chargeID)/refund", key: fixture.adminA)
            #expect(rest.json["status"] as? String == "approved", "\(rest.text)")
            let refunded = try await client.send(.get, "/v1/transactions/\(chargeID)", key: fixture.adminA)
            #expect(refunded.json["status"] as? String == "refunded")

            // The runner's process sees the refunds the server made.
            let gatewayID = try #require((charge["gateway"] as? [String: Any])?["transactionId"] as? String)
            let atRunner = try await runner.gateways.sandbox.transaction(id: gatewayID)
            #expect(atRunner?.refunded == Money(minorUnits: 4200, currency: try Currency(code: "USD")))
        }
    }
}
