import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
@testable import Vault
import VaultSQLite

/// A step a charge run has claimed is the run's until its outcome is written, on either engine:
/// an operator's skip, cancellation or amount change that read the step before the claim writes
/// nothing (409), and a runner whose step was cancelled with its card after the claim does not
/// record an attempt, so calls no gateway.
@Suite struct ClaimedStepRaceTests {
    static let registered = Timestamp.parse("2027-01-01T00:00:00Z")!

    struct Claimed {
        var fixture: ChargingFixture
        var merchant: Merchant
        var card: SecureCard
        var schedule: ScheduleView
        var due: DueStep
    }

    /// A confirmed schedule with one step due 2027-03-02, claimed by runner `runner` with five
    /// minutes of lease from now (the operator acts now, before the step falls due).
    static func claimed() async throws -> Claimed {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: registered)
        let schedule = try await fixture.schedule(
            card, amount: 1000, currency: "EUR", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: registered)
        let now = Date()
        let due = try #require(try await fixture.store.claimDueSteps(
            asOf: ChargingFixture.endOfDay("2027-03-02"), merchantID: nil, owner: "runner", now: now, leaseUntil: now.addingTimeInterval(300),
            limit: 10, isOwnerGone: { _ in false }).first)
        return Claimed(fixture: fixture, merchant: merchant, card: card, schedule: schedule, due: due)
    }

    @Test func skippingCancellingOrRepricingAStepARunHasClaimedIs409AndChangesNothing() async throws {
        let claimed = try await Self.claimed()
        let (fixture, merchant, id, stepID) = (claimed.fixture, claimed.merchant, claimed.schedule.schedule.id, claimed.due.step.id)
        let refusal = ScheduleError.stepChanged(stepID: stepID)
        await #expect(throws: refusal) { try await fixture.schedules.skip(id: id, stepID: stepID, merchant: merchant, actor: "operator") }
        await #expect(throws: refusal) { try await fixture.schedules.cancel(id: id, merchant: merchant, actor: "operator") }
        await #expect(throws: refusal) {
            try await fixture.schedules.change(id: id, ScheduleChange(amount: 9_999_99), merchant: merchant, actor: "operator")
        }
        let step = try #require(try await fixture.steps(id).first)
        #expect(step.status == .scheduled && step.amount == 1000)
        #expect(try await fixture.store.schedule(merchantID: merchant.id, id: id)?.status == .active)
        #expect(try await fixture.store.schedule(merchantID: merchant.id, id: id)?.amount == 1000)

        // Once the run lets the step go, the skip the operator asked for goes through.
        try await fixture.store.releaseLeases(stepIDs: [stepID], owner: "runner")
        _ = try await fixture.schedules.skip(id: id, stepID: stepID, merchant: merchant, actor: "operator")
        #expect(try await fixture.steps(id).map(\.status) == [.skipped])
    }

    @Test func aRunnerWhoseClaimedStepWasCancelledWithItsCardRecordsNoAttempt() async throws {
        let claimed = try await Self.claimed()
        let (fixture, merchant) = (claimed.fixture, claimed.merchant)
        let cancelled = try await fixture.store.deleteSecureCard(
            SecureCardDeletion(
                merchantID: merchant.id, reference: claimed.card.reference, purge: false,
                audit: AuditEntry(merchantID: merchant.id, actor: "operator", action: "secure_card.deleted", objectType: "secure_card",
                                  objectID: claimed.card.reference),
                at: Date()),
            cancelSchedules: true)
        #expect(cancelled == [claimed.schedule.schedule.id])
        #expect(try await fixture.steps(claimed.schedule.schedule.id).map(\.status) == [.cancelled])

        var attempt = ChargeWritesTests.attempt(claimed.due, merchant: merchant)
        attempt.leaseOwner = "runner"
        let refused = try await fixture.store.recordAttempts([attempt])
        #expect(refused.count == 1 && (refused[0] as? StepLeaseError) == .leaseLost(stepID: claimed.due.step.id))
        #expect(try await fixture.steps(claimed.schedule.schedule.id).map(\.status) == [.cancelled])
        #expect(try await fixture.count("SELECT count(*) AS n FROM transactions") == 0, "no attempt, so no gateway call")
    }
}
