import Foundation
import Logging
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
@testable import Vault
import VaultSQLite

/// Someone who can write to the database but holds no key (a DBA, a restored backup, a replica)
/// cannot make the charge runner move money: a schedule pointed at another customer's card, moved
/// to another merchant, or a step re-priced in SQL is sent to review with a reason and an audit
/// event, counted as an integrity failure, and never sent to the gateway; the steps beside it are
/// charged. On either engine.
@Suite struct TamperedScheduleChargeTests {
    static let registered = Timestamp.parse("2027-01-01T00:00:00Z")!
    static let due = ChargingFixture.endOfDay("2027-03-02")

    struct Setup {
        var fixture: ChargingFixture
        var merchant: Merchant
        /// The schedule the insider edits, on the customer's own card.
        var tampered: ScheduleView
        /// Another customer's schedule, left alone.
        var intact: ScheduleView
        /// The other customer's card.
        var otherCard: SecureCard
    }

    static func setup() async throws -> Setup {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let own = try await fixture.card("own", pan: "4242424242424242", merchant: merchant, now: registered)
        let other = try await fixture.card("other", pan: "5555555555554444", merchant: merchant, now: registered)
        let plan = PlanTerms(type: "delayedOnce", startDate: "2027-03-02")
        let tampered = try await fixture.schedule(own, amount: 1500, currency: "USD", plan: plan, merchant: merchant, now: registered)
        let intact = try await fixture.schedule(other, amount: 700, currency: "USD", plan: plan, merchant: merchant, now: registered)
        return Setup(fixture: fixture, merchant: merchant, tampered: tampered, intact: intact, otherCard: other)
    }

    /// A runner whose log (an error line per refused step) stays out of the test output.
    static func runner(_ fixture: ChargingFixture) -> ChargeRunner {
        var logger = Logger(label: "test.runner")
        logger.logLevel = .critical
        return ChargeRunner(
            store: fixture.store, cards: fixture.cards, gateways: MerchantGateways(registry: fixture.registry, merchants: fixture.merchants),
            merchants: fixture.store, policy: RetryPolicy(), logger: logger)
    }

    /// Runs the night's charges and checks the tampered schedule's step was refused, not charged.
    static func expectRefused(_ setup: Setup, reason: String) async throws {
        let summary = try await Self.runner(setup.fixture).run(ChargeRunner.Options(asOf: due))
        let step = setup.tampered.steps[0].id
        #expect(summary.integrityFailures == 1)
        #expect(summary.outcomes[ChargeOutcome.needsReview.rawValue]?.count == 1)
        #expect(summary.failuresByCode[ChargeRunner.integrityFailedCode] == 1)
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 1, "the other schedule is charged")
        #expect(try await setup.fixture.sandbox.transactionCount == 1)
        #expect(try await setup.fixture.count("SELECT count(*) AS n FROM transactions WHERE step_id = \(step)") == 0, "no attempt written")
        #expect(try await setup.fixture.count(
            "SELECT count(*) AS n FROM schedule_steps WHERE id = \(step) AND status = 'needs_review' AND lease_owner IS NULL") == 1)
        #expect(try await setup.fixture.count(
            """
            SELECT count(*) AS n FROM audit_events WHERE action = 'charge.integrity_failed' AND object_id = \(step)
                AND details LIKE '%' || \(reason) || '%'
            """) == 1)
        // The next night it is not charged either: it waits for an operator.
        let again = try await Self.runner(setup.fixture).run(ChargeRunner.Options(asOf: due.addingTimeInterval(86_400)))
        #expect(again.processed == 0)
        #expect(try await setup.fixture.sandbox.transactionCount == 1)
    }

    @Test func aSchedulePointedAtAnotherCustomersCardInSQLIsSentToReviewAndNeverCharged() async throws {
        let setup = try await Self.setup()
        try await setup.fixture.database.sql.run(
            "UPDATE schedules SET secure_card_id = \(setup.otherCard.reference) WHERE id = \(setup.tampered.schedule.id)")
        try await Self.expectRefused(setup, reason: "schedule's stored card")
    }

    @Test func aStepRaisedFrom15To9999_99InSQLIsSentToReviewAndNeverCharged() async throws {
        let setup = try await Self.setup()
        try await setup.fixture.database.sql.run("UPDATE schedule_steps SET amount = 999999 WHERE id = \(setup.tampered.steps[0].id)")
        try await Self.expectRefused(setup, reason: "step's stored schedule, amount")
    }

    @Test func aScheduleAndItsStepRaisedTogetherInSQLAreSentToReviewAndNeverCharged() async throws {
        let setup = try await Self.setup()
        try await setup.fixture.database.sql.run("UPDATE schedules SET amount = 999999 WHERE id = \(setup.tampered.schedule.id)")
        try await setup.fixture.database.sql.run("UPDATE schedule_steps SET amount = 999999 WHERE id = \(setup.tampered.steps[0].id)")
        try await Self.expectRefused(setup, reason: "schedule's stored card")
    }

    @Test func aScheduleMovedToAnotherMerchantInSQLIsSentToReviewAndNeverCharged() async throws {
        let setup = try await Self.setup()
        let thief = try await setup.fixture.merchant("thief", zone: "UTC")
        try await setup.fixture.database.sql.run("UPDATE schedules SET merchant_id = \(thief.id) WHERE id = \(setup.tampered.schedule.id)")
        try await setup.fixture.database.sql.run(
            "UPDATE schedule_steps SET merchant_id = \(thief.id) WHERE schedule_id = \(setup.tampered.schedule.id)")
        try await Self.expectRefused(setup, reason: "schedule's stored card")
    }

    @Test func aStepWhoseBindingWasStrippedIsNotBoundAgainAtStartUpAndNeverCharged() async throws {
        let setup = try await Self.setup()
        let step = setup.tampered.steps[0].id
        try await setup.fixture.database.sql.run("UPDATE schedule_steps SET amount = 999999, binding = NULL WHERE id = \(step)")
        let startUp = try await ScheduleBinding(keyring: setup.fixture.keyring).bindLegacyRows(in: setup.fixture.store)
        #expect(startUp.bound == 0)
        #expect(startUp.refused == [setup.tampered.schedule.id])
        try await Self.expectRefused(setup, reason: "step's stored schedule, amount")
    }

    @Test func anUntouchedScheduleIsChargedAndNothingIsRefused() async throws {
        let setup = try await Self.setup()
        let summary = try await Self.runner(setup.fixture).run(ChargeRunner.Options(asOf: Self.due))
        #expect(summary.integrityFailures == 0)
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 2)
        #expect(try await setup.fixture.sandbox.transactionCount == 2)
    }
}
