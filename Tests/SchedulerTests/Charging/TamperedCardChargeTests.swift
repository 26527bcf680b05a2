import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultSQLite

/// In the charge runner: a card whose expiry was moved forward in the
/// database does not open, so the step is declined locally (`card_unavailable`) and the gateway is
/// never called.
@Suite struct TamperedCardChargeTests {
    @Test func aDueStepOnACardWithAnEditedExpiryIsDeclinedWithoutAGatewayCall() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let registered = Timestamp.parse("2027-01-01T00:00:00Z")!
        let tampered = try await fixture.card("tampered", pan: "4242424242424242", merchant: merchant, now: registered)
        let intact = try await fixture.card("intact", pan: "5555555555554444", merchant: merchant, now: registered)
        for card in [tampered, intact] {
            _ = try await fixture.schedule(
                card, amount: 700, currency: "USD", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: registered)
        }
        try await fixture.database.sql.run("UPDATE secure_cards SET expiry_year = 2040 WHERE id = \(tampered.reference)")
        let summary = try await fixture.runner().run(ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02")))
        #expect(summary.processed == 2)
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(try await fixture.sandbox.transactionCount == 1)
        let declines = try await fixture.count(
            """
            SELECT count(*) AS n FROM transactions WHERE secure_card_id = \(tampered.reference) AND decline_code = 'card_unavailable'
                AND gateway_transaction_id IS NULL
            """)
        #expect(declines == 1)
    }
}
