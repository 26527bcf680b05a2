import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
@testable import Vault

/// A step's write applies only while the step is still what the writer saw, on either engine: a
/// runner whose lease expired and was taken over by another runner writes nothing more of that
/// step (neither a new attempt, which would reset the taker's open attempt and call the gateway
/// twice, nor its late outcome, which would overwrite the taker's); an operator's resolution
/// applies only to a step still in review.
@Suite struct GuardedStepWriteTests {
    static let slow = "host-a:1:slow"
    static let taker = "host-b:2:taker"

    /// One step claimed by the slow runner, its attempt written, its lease expired and the step
    /// claimed by the taker (with the slow runner's attempt as its open attempt).
    struct TakenOver {
        let world: ChargeWritesTests.World
        let slowAttempt: ChargeAttempt
        let taken: DueStep
    }

    static func takenOver() async throws -> TakenOver {
        let world = try await ChargeWritesTests.world([("4242424242424242", "1230")])
        let due = world.dues[0]
        var slowAttempt = ChargeWritesTests.attempt(due, merchant: world.merchant)
        slowAttempt.leaseOwner = "test-runner"
        #expect(try await world.fixture.store.recordAttempts([slowAttempt]).allSatisfy { $0 == nil })
        // The world's claim leased the step for 300 s; past that, the taker claims it.
        let later = Date().addingTimeInterval(301)
        let claimed = try await world.fixture.store.claimDueSteps(
            asOf: ChargeWritesTests.asOf, merchantID: nil, owner: taker, now: later, leaseUntil: later.addingTimeInterval(300), limit: 1,
            isOwnerGone: { _ in false })
        let taken = try #require(claimed.first)
        #expect(taken.step.id == due.step.id)
        #expect(taken.openAttempt?.id == slowAttempt.transaction.id)
        return TakenOver(world: world, slowAttempt: slowAttempt, taken: taken)
    }

    @Test func aRunnerThatLostItsLeaseCannotWriteAnotherAttemptAndNothingOfItIsWritten() async throws {
        let state = try await Self.takenOver()
        let before = try await state.world.fixture.database.sql.everyRowAsText()
        var again = ChargeWritesTests.attempt(state.world.dues[0], merchant: state.world.merchant)
        again.transaction.idempotencyKey += "-again"
        again.leaseOwner = "test-runner"
        let errors = try await state.world.fixture.store.recordAttempts([again])
        #expect((errors.first ?? nil) as? StepLeaseError == .leaseLost(stepID: state.taken.step.id))
        #expect(try await state.world.fixture.database.sql.everyRowAsText() == before)
    }

    @Test func aRunnerThatLostItsLeaseCannotWriteItsOutcomeAndNothingOfItIsWritten() async throws {
        let state = try await Self.takenOver()
        let before = try await state.world.fixture.database.sql.everyRowAsText()
        // The slow runner's late answer: a hard decline, which would fail the step and put the
        // schedule past due (audit and webhook events) if it were written.
        var late = ChargeWritesTests.outcome(
            state.slowAttempt.transaction, ChargeWritesTests.hardDecline, due: state.world.dues[0], world: state.world)
        late.leaseOwner = "test-runner"
        #expect(late.outcome.stepStatus == .failed)
        let results = try await state.world.fixture.store.recordOutcomes([late])
        #expect(throws: StepLeaseError.leaseLost(stepID: state.taken.step.id)) { try results[0].get() }
        #expect(try await state.world.fixture.database.sql.everyRowAsText() == before)

        // The taker still settles the step with its own outcome.
        var own = ChargeWritesTests.outcome(
            try #require(state.taken.openAttempt), ChargeWritesTests.approved, due: state.taken, world: state.world)
        own.leaseOwner = Self.taker
        #expect(try await state.world.fixture.store.recordOutcomes([own])[0].get() == RecordedOutcome(scheduleCompleted: true))
        #expect(try await state.world.step(0).status == .approved)
    }

    @Test func anOperatorsResolutionOfAStepNoLongerInReviewIsRefusedAndNothingOfItIsWritten() async throws {
        let state = try await Self.takenOver()
        let before = try await state.world.fixture.database.sql.everyRowAsText()
        // Resolved as charged while the step is in fact being charged again by the taker.
        var resolution = ChargeWritesTests.outcome(
            state.slowAttempt.transaction, ChargeWritesTests.approved, due: state.world.dues[0], world: state.world)
        resolution.outcome.expectedStepStatus = .needsReview
        let results = try await state.world.fixture.store.recordOutcomes([resolution])
        #expect(throws: StepReviewError.wrongStatus(current: .processing)) { try results[0].get() }
        #expect(try await state.world.fixture.database.sql.everyRowAsText() == before)
    }
}
