import Foundation
import Payments
@testable import Scheduler
import Synchronization
import StorageTestSupport
import Testing
import Vault
@testable import VaultSQLite

/// A sale whose answer is lost must never be charged twice: it is looked up, never
/// re-sent in the same run, and re-sent (same idempotency key) only after the grace period when
/// the gateway still has no record of it. Gateway errors must not make the runner spin.
@Suite struct InDoubtChargeTests {
    /// Counts the sandbox's sale calls and injects a failure into the first `failing` of them.
    final class SaleCalls: Sendable {
        private let calls = Mutex(0)
        let failure: SandboxGateway.InjectedFailure
        let failing: Int

        init(failure: SandboxGateway.InjectedFailure, failing: Int) {
            self.failure = failure
            self.failing = failing
        }

        var count: Int { calls.withLock { $0 } }

        var behaviour: SandboxGateway.Behaviour {
            SandboxGateway.Behaviour(failureRule: { call in
                guard call.operation == "sale" else { return nil }
                let number = self.calls.withLock { count in
                    count += 1
                    return count
                }
                return number <= self.failing ? self.failure : nil
            })
        }
    }

    struct Setup {
        let fixture: ChargingFixture
        let scheduleID: String
        let stepID: String
        let options: ChargeRunner.Options
    }

    static let now = Timestamp.parse("2027-03-01T00:00:00Z")!

    /// One `delayedOnce` step of 12.34 EUR due on 2027-03-02, charged as of the end of that day.
    static func setUp(_ calls: SaleCalls, grace: TimeInterval) async throws -> Setup {
        let fixture = try await ChargingFixture(sandbox: SandboxGateway(behaviour: calls.behaviour))
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: now)
        let view = try await fixture.schedule(
            card, amount: 1234, currency: "EUR", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: now)
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.retryBackoff = .milliseconds(1)
        options.inDoubtGrace = grace
        return Setup(fixture: fixture, scheduleID: view.schedule.id, stepID: try #require(view.steps.first).id, options: options)
    }

    func step(_ setup: Setup) async throws -> ScheduleStep {
        let steps = try await setup.fixture.steps(setup.scheduleID)
        return try #require(steps.first)
    }

    @Test func aSaleProcessedButUnansweredIsSettledByLookupWithoutASecondSale() async throws {
        let calls = SaleCalls(failure: .timeoutAfterProcessing, failing: 1)
        let setup = try await Self.setUp(calls, grace: 3600)
        let summary = try await setup.fixture.runner().run(setup.options)
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(calls.count == 1)
        #expect(try await setup.fixture.sandbox.transactionCount == 1)
        let step = try await step(setup)
        #expect(step.status == .approved && step.attempts == 1)
    }

    @Test func aSaleTheGatewayHasNotSeenIsNotResentInsideTheGracePeriod() async throws {
        let calls = SaleCalls(failure: .timeoutBeforeProcessing, failing: 1)
        let setup = try await Self.setUp(calls, grace: 3600)
        let runner = setup.fixture.runner()
        let first = try await runner.run(setup.options)
        #expect(first.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 1)
        #expect(!first.settled)
        #expect(calls.count == 1, "an in-doubt sale is never re-sent in the same run")
        let second = try await runner.run(setup.options)
        #expect(second.processed == 0, "the unsettled step is held back for the grace period")
        #expect(!second.settled, "a run that leaves a step held back in doubt has not settled the night")

        // A killed runner's open attempt whose lease has expired, still inside the grace period:
        // the gateway has no record, but it may still be processing it, so nothing is sent.
        try await setup.fixture.database.sql.run(
            """
            UPDATE schedule_steps SET lease_until = '2000-01-01T00:00:00.000Z' WHERE id = \(setup.stepID)
            """)
        let third = try await runner.run(setup.options)
        #expect(third.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 1)
        #expect(calls.count == 1)
        #expect(try await setup.fixture.sandbox.transactionCount == 0)
        let step = try await step(setup)
        #expect(step.status == .processing)
    }

    @Test func aSaleTheGatewayNeverSawIsResentWithTheSameKeyAfterTheGracePeriod() async throws {
        let calls = SaleCalls(failure: .timeoutBeforeProcessing, failing: 1)
        let setup = try await Self.setUp(calls, grace: 0)
        let runner = setup.fixture.runner()
        let first = try await runner.run(setup.options)
        #expect(first.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 1)
        let second = try await runner.run(setup.options)
        #expect(second.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(second.settled)
        #expect(calls.count == 2)
        #expect(try await setup.fixture.sandbox.transactionCount == 1)
        let step = try await step(setup)
        #expect(step.status == .approved && step.attempts == 1, "the re-send is the same attempt, not a new one")
        let keys = try await setup.fixture.count(
            """
            SELECT count(DISTINCT idempotency_key) AS n FROM transactions WHERE step_id = \(setup.stepID)
            """)
        #expect(keys == 1)
    }

    @Test func anOpenAttemptRaisedInSQLIsNeitherLookedUpNorSentAgainAndItsStepGoesToReview() async throws {
        let calls = SaleCalls(failure: .timeoutBeforeProcessing, failing: 1)
        let setup = try await Self.setUp(calls, grace: 0)
        let runner = setup.fixture.runner()
        let first = try await runner.run(setup.options)
        #expect(first.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 1)
        #expect(try await setup.fixture.database.sql.run("UPDATE transactions SET amount = 8000000 WHERE step_id = \(setup.stepID)") == 1)

        let second = try await runner.run(setup.options)
        #expect(second.integrityFailures == 1)
        #expect(calls.count == 1, "the altered attempt is not sent again")
        #expect(try await setup.fixture.sandbox.transactionCount == 0)
        #expect(try await step(setup).status == .needsReview)
        #expect(try await setup.fixture.count(
            """
            SELECT count(*) AS n FROM audit_events WHERE action = 'charge.integrity_failed' AND object_id = \(setup.stepID)
                AND details LIKE '%open attempt%'
            """) == 1)
    }

    @Test func aGatewayAnswering503IsRetriedABoundedNumberOfTimesThenHeldBack() async throws {
        let calls = SaleCalls(failure: .serverError, failing: .max)
        let setup = try await Self.setUp(calls, grace: 3600)
        var options = setup.options
        options.gatewayRetries = 2
        let runner = setup.fixture.runner()
        let first = try await runner.run(options)
        #expect(first.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 1)
        #expect(calls.count == 3, "one call and two in-run retries")
        let again = try await runner.run(options)
        #expect(again.processed == 0)
        #expect(calls.count == 3)
        #expect(try await setup.fixture.sandbox.transactionCount == 0)
    }
}
