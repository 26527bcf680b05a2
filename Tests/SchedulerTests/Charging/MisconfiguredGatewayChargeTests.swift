import Foundation
import Logging
import Payments
@testable import Scheduler
import Testing
import Vault
import VaultSQLite

/// A merchant whose gateway cannot be used as configured (here NMI without its `security_key`,
/// as a merchant stored before credentials were checked): the run sends nothing, writes no
/// attempt, leaves the steps due, counts them as configuration errors by code (not as in doubt),
/// and logs one warning for the merchant and gateway with the count and the reason.
@Suite struct MisconfiguredGatewayChargeTests {
    static let now = Timestamp.parse("2027-03-01T00:00:00Z")!

    @Test func aMerchantWithoutItsGatewayCredentialsFailsTheRunByCodeAndLeavesItsStepsDue() async throws {
        let fixture = try await ChargingFixture()
        var merchant = try await fixture.merchant("shop", zone: "UTC")
        var views: [ScheduleView] = []
        for index in 0..<3 {
            let card = try await fixture.card("c\(index)", pan: "4111111111111111", merchant: merchant, now: Self.now)
            views.append(try await fixture.schedule(
                card, amount: 2_500, currency: "USD", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: Self.now))
        }
        // Stored directly: the merchant service refuses such a merchant now.
        merchant.gateway.name = "nmi"
        merchant.gateway.url = "http://127.0.0.1:9/api/transact.php"
        try await fixture.store.updateMerchant(
            merchant, sealedGatewayCredentials: nil,
            audit: AuditEntry(merchantID: merchant.id, actor: "test", action: "merchant.updated", objectType: "merchant", objectID: merchant.id))

        let logs = WebhookLogs()
        let runner = ChargeRunner(
            store: fixture.store, cards: fixture.cards, gateways: MerchantGateways(registry: fixture.registry, merchants: fixture.merchants),
            merchants: fixture.store, policy: RetryPolicy(), logger: logs.logger)
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.inDoubtGrace = 0
        let summary = try await runner.run(options)

        #expect(summary.outcomes[ChargeOutcome.configurationError.rawValue]?.count == 3)
        #expect(summary.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 0)
        #expect(summary.failuresByCode == ["gateway_not_configured": 3])
        #expect(!summary.settled)
        #expect(summary.table.contains("not approved, by code: gateway_not_configured 3"))
        #expect(summary.table.contains("3 STEP(S) NOT SENT: GATEWAY MISCONFIGURED"))
        // Nothing written: no attempt, the steps still due and free for the next run.
        #expect(try await fixture.count("SELECT count(*) AS n FROM transactions") == 0)
        for view in views {
            let step = try #require(try await fixture.steps(view.schedule.id).first)
            #expect(step.status == .scheduled)
            #expect(step.attempts == 0)
        }
        let warnings = logs.text.split(separator: "\n").filter { $0.hasPrefix("warning charges not sent") }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.contains("\"steps\": 3") == true, "\(warnings)")
        #expect(warnings.first?.contains(merchant.id) == true)
        #expect(warnings.first?.contains("\"gateway\": nmi") == true, "the cause names the gateway: \(warnings)")
        #expect(warnings.first?.contains("security_key") == true, "the reason names the missing credential: \(warnings)")

        // Fixed, the next run charges every step once.
        _ = try await fixture.merchants.update(name: "shop", settings: .init(gateway: "sandbox"), actor: "test")
        let fixed = try await fixture.runner().run(options)
        #expect(fixed.outcomes[ChargeOutcome.approved.rawValue]?.count == 3)
        #expect(fixed.settled)
    }
}
