import Foundation
import Payments
import Testing
import Vault
@testable import Scheduler
import VaultSQLite

/// What an outcome leaves behind. A step that finally fails keeps no next attempt;
/// a charge in doubt that settles loses the error code it had while in doubt; a UTC merchant's
/// schedules name the zone as configured (`UTC`, where `TimeZone.identifier` says `GMT`).
@Suite struct StaleOutcomeFieldsTests {
    static let now = Timestamp.parse("2027-03-01T00:00:00Z")!

    @Test func aStepThatFinallyFailsHasNoNextAttempt() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4000000000009995", merchant: merchant, now: Self.now)
        let view = try await fixture.schedule(
            card, amount: 500, currency: "EUR", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: Self.now)
        let runner = fixture.runner(policy: RetryPolicy(delaysDays: [1], maxAttempts: 2))
        _ = try await runner.run(ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02")))
        let retrying = try #require(try await fixture.steps(view.schedule.id).first)
        #expect(retrying.status == .retryPending)
        #expect(retrying.nextAttemptAt != nil, "a soft decline plans the next attempt")

        _ = try await runner.run(ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-10")))
        let failed = try #require(try await fixture.steps(view.schedule.id).first)
        #expect(failed.status == .failed)
        #expect(failed.attempts == 2)
        #expect(failed.nextAttemptAt == nil)
    }

    @Test func aChargeSettledAfterBeingInDoubtKeepsNoErrorCode() async throws {
        let calls = InDoubtChargeTests.SaleCalls(failure: .timeoutBeforeProcessing, failing: 1)
        let setup = try await InDoubtChargeTests.setUp(calls, grace: 0)
        let runner = setup.fixture.runner()
        _ = try await runner.run(setup.options)
        let inDoubt: SQLiteQuery = "SELECT count(*) AS n FROM transactions WHERE step_id = \(setup.stepID) AND error_code IS NOT NULL"
        #expect(try await setup.fixture.count(inDoubt) == 1, "while in doubt the reason is kept")
        _ = try await runner.run(setup.options)
        #expect(try await setup.fixture.count(
            """
            SELECT count(*) AS n FROM transactions WHERE step_id = \(setup.stepID) AND status = 'approved'
            """) == 1)
        #expect(try await setup.fixture.count(inDoubt) == 0)
    }

    @Test func everyOutcomeReplacesTheFieldsOfTheOneBefore() {
        var transaction = Transaction(id: "txn_1", merchantID: "m", type: .sale, amount: 1, currency: try! Currency(code: "EUR"), gateway: "sandbox", now: Self.now)
        transaction.apply(GatewayResult(outcome: .inDoubt(reason: "timeout")), now: Self.now)
        #expect(transaction.errorCode == "timeout")
        transaction.apply(GatewayResult(outcome: .declined(code: "insufficient_funds", category: .soft)), now: Self.now)
        #expect(transaction.errorCode == nil)
        #expect(transaction.declineCode == "insufficient_funds")
        transaction.apply(GatewayResult(outcome: .approved), now: Self.now)
        #expect(transaction.status == .approved)
        #expect(transaction.declineCode == nil && transaction.declineCategory == nil && transaction.errorCode == nil)
    }

    @Test(arguments: [("UTC", nil, "UTC"), ("UTC", "Etc/UTC", "Etc/UTC"), ("Europe/Berlin", nil, "Europe/Berlin"), ("UTC", "GMT", "GMT")])
    func aSchedulesZoneIsNamedAsConfigured(merchantZone: String, requested: String?, expected: String) async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: merchantZone)
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: Self.now)
        let view = try await fixture.schedule(
            card, amount: 500, currency: "EUR", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02", timeZone: requested),
            merchant: merchant, now: Self.now)
        #expect(view.schedule.plan.timeZone == expected)
        #expect(try await fixture.schedules.get(id: view.schedule.id, merchant: merchant).schedule.plan.timeZone == expected)
    }

    @Test func aStartInThePastNamesTheConfiguredZone() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: Self.now)
        do {
            _ = try await fixture.schedule(
                card, amount: 500, currency: "EUR", plan: PlanTerms(type: "delayedOnce", startDate: "2020-01-01"), merchant: merchant, now: Self.now)
            Issue.record("a start in the past was accepted")
        } catch let error as PlanValidationError {
            #expect(error.field == "startDate" && error.rule == "in_past")
            #expect(error.message.hasSuffix("in UTC)"), "\(error.message)")
        }
    }
}
