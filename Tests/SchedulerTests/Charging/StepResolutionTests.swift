import Foundation
@testable import GatewayFakes
import Payments
import Testing
import Vault
@testable import Scheduler
import VaultSQLite

/// An operator resolves a step in review as charged (the attempt is recorded
/// with the gateway's transaction id, the step settles) or not charged (the step falls due again
/// under the retry policy); bad input and wrong states change nothing.
@Suite struct StepResolutionTests {
    typealias Lost = LostAnswerLookupTests

    func service(_ setup: Lost.Setup, policy: RetryPolicy = RetryPolicy()) -> StepReviewService {
        StepReviewService(store: setup.fixture.store, policy: policy, keyring: setup.fixture.keyring)
    }

    @Test func resolvedAsChargedRecordsTheTransactionAndSettlesTheStep() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let (setup, _) = try await Lost.nmiStepInReview(fake)
        let step = try await service(setup).resolve(
            scheduleID: setup.scheduleID, stepID: setup.stepID, .charged(gatewayTransactionID: "9100000042"), merchant: setup.merchant,
            actor: "operator")
        #expect(step.status == .approved && step.attempts == 1)
        #expect(try await setup.count(
            """
            SELECT count(*) AS n FROM transactions WHERE step_id = \(setup.stepID) AND status = 'approved'
                AND gateway_transaction_id = '9100000042'
            """) == 1)
        #expect(try await setup.fixture.count(
            """
            SELECT count(*) AS n FROM schedules WHERE id = \(setup.scheduleID) AND status = 'completed'
            """) == 1)
        #expect(try await setup.count(
            """
            SELECT count(*) AS n FROM audit_events WHERE action = 'charge.resolved' AND actor = 'operator'
                AND details LIKE '%' || \(setup.stepID) || '%'
            """) == 1)
        #expect(try await setup.fixture.count("SELECT count(*) AS n FROM webhook_events WHERE type = 'transaction.approved'") == 1)
        let next = try await setup.runner().run(setup.options)
        #expect(next.processed == 0 && next.stepsInReview == 0)
        #expect(fake.receivedTypes == ["sale"])
        // Resolved once: a second resolution is a conflict and changes nothing.
        await #expect(throws: StepReviewError.wrongStatus(current: .approved)) {
            try await service(setup).resolve(
                scheduleID: setup.scheduleID, stepID: setup.stepID, .notCharged, merchant: setup.merchant, actor: "operator")
        }
        #expect(try await setup.step().status == .approved)
    }

    @Test func resolvedAsNotChargedFallsDueAgainUnderTheRetryPolicy() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let (setup, _) = try await Lost.nmiStepInReview(fake)
        let step = try await service(setup).resolve(
            scheduleID: setup.scheduleID, stepID: setup.stepID, .notCharged, merchant: setup.merchant, actor: "operator")
        #expect(step.status == .retryPending)
        // Attempt 1 was due 2027-03-02 09:00 UTC; the policy's first delay is one day.
        #expect(step.nextAttemptAt == Timestamp.parse("2027-03-03T09:00:00Z"))
        #expect(try await setup.count(
            """
            SELECT count(*) AS n FROM transactions WHERE step_id = \(setup.stepID) AND status = 'error' AND error_code = 'not_charged'
            """) == 1)
        var options = setup.options
        options.asOf = ChargingFixture.endOfDay("2027-03-03")
        let next = try await setup.runner().run(options)
        #expect(next.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        let charged = try await setup.step()
        #expect(charged.status == .approved && charged.attempts == 2, "a new attempt, with its own reference")
        #expect(fake.receivedTypes == ["sale", "sale"])
    }

    @Test func notChargedOnTheLastAttemptFailsTheStepWithThePastDuePolicy() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let (setup, _) = try await Lost.nmiStepInReview(fake)
        let step = try await service(setup, policy: RetryPolicy(maxAttempts: 1)).resolve(
            scheduleID: setup.scheduleID, stepID: setup.stepID, .notCharged, merchant: setup.merchant, actor: "operator")
        #expect(step.status == .failed)
        #expect(try await setup.fixture.count(
            """
            SELECT count(*) AS n FROM schedules WHERE id = \(setup.scheduleID) AND status = 'past_due'
            """) == 1)
    }

    @Test func onlyAStepInReviewOfAKnownScheduleCanBeResolved() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let setup = try await Lost.nmi(fake)
        let reviews = service(setup)
        await #expect(throws: StepReviewError.wrongStatus(current: .scheduled)) {
            try await reviews.resolve(scheduleID: setup.scheduleID, stepID: setup.stepID, .notCharged, merchant: setup.merchant, actor: "o")
        }
        await #expect(throws: StepReviewError.notFound("step")) {
            try await reviews.resolve(scheduleID: setup.scheduleID, stepID: "stp_nope", .notCharged, merchant: setup.merchant, actor: "o")
        }
        await #expect(throws: StepReviewError.notFound("schedule")) {
            try await reviews.resolve(scheduleID: "sch_nope", stepID: setup.stepID, .notCharged, merchant: setup.merchant, actor: "o")
        }
        let other = try await setup.fixture.merchant("other", zone: "UTC")
        await #expect(throws: StepReviewError.notFound("schedule")) {
            try await reviews.resolve(scheduleID: setup.scheduleID, stepID: setup.stepID, .notCharged, merchant: other, actor: "o")
        }
        #expect(try await setup.step().status == .scheduled)
    }
}
