import Foundation
import Logging
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultSQLite

/// A stored row holding a value this build does not know (written by a newer build sharing the
/// database, or damaged) fails to read with an error naming its table, id and column, on both
/// engines; the row beside it still reads. Nothing is guessed.
@Suite struct UnreadableRowTests {
    let registered = Timestamp.parse("2027-01-01T00:00:00Z")!

    /// Lets `column` of `table` hold `value`, as a newer build's migration would.
    func allow(_ value: String, in table: String, column: String, fixture: ChargingFixture) async throws {
        switch fixture.database.engine {
        case .sqlite:
            try await fixture.database.sqlite!.database.write { connection in
                try connection.addCheckValues(table: table, column: column, values: [value])
            }
        case .postgres:
            try await fixture.database.sql.run("ALTER TABLE \(unescaped: table) DROP CONSTRAINT \(unescaped: table)_\(unescaped: column)_check")
        }
    }

    /// A runner whose log (an error line per unreadable row) stays out of the test output.
    func silentRunner(_ fixture: ChargingFixture) -> ChargeRunner {
        var logger = Logger(label: "test.runner")
        logger.logLevel = .critical
        return ChargeRunner(
            store: fixture.store, cards: fixture.cards, gateways: MerchantGateways(registry: fixture.registry, merchants: fixture.merchants),
            merchants: fixture.store, policy: RetryPolicy(), logger: logger)
    }

    /// The error reading threw, or nil when it read.
    func error(_ read: () async throws -> Void) async -> StoredRowError? {
        do {
            try await read()
            return nil
        } catch let error as StoredRowError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func aCardWithACardTypeThisBuildDoesNotKnowFailsNamingTheRowAndTheCardBesideItReads() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let newer = try await fixture.card("newer", pan: "4242424242424242", merchant: merchant, now: registered)
        let known = try await fixture.card("known", pan: "5555555555554444", merchant: merchant, now: registered)
        try await fixture.database.sql.run("UPDATE secure_cards SET card_type = 'futurecard' WHERE id = \(newer.reference)")

        let failure = await error { _ = try await fixture.store.secureCard(merchantID: merchant.id, reference: newer.reference) }
        #expect(failure == .unreadable(table: "secure_cards", id: newer.reference, column: "card_type", value: "futurecard"))
        #expect(try await fixture.store.secureCard(merchantID: merchant.id, reference: known.reference)?.cardType == .mastercard)
    }

    @Test func aScheduleWithAStatusOfANewerBuildFailsNamingTheRowAndTheScheduleBesideItReads() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: registered)
        let plan = PlanTerms(type: "delayedOnce", startDate: "2027-03-02")
        let newer = try await fixture.schedule(card, amount: 700, currency: "USD", plan: plan, merchant: merchant, now: registered).schedule
        let known = try await fixture.schedule(card, amount: 800, currency: "USD", plan: plan, merchant: merchant, now: registered).schedule
        try await allow("suspended", in: "schedules", column: "status", fixture: fixture)
        try await fixture.database.sql.run("UPDATE schedules SET status = 'suspended' WHERE id = \(newer.id)")

        let failure = await error { _ = try await fixture.store.schedule(merchantID: merchant.id, id: newer.id) }
        #expect(failure == .unreadable(table: "schedules", id: newer.id, column: "status", value: "suspended"))
        #expect(try await fixture.store.schedule(merchantID: merchant.id, id: known.id)?.status == .active)
    }

    @Test func aStepWithAnUnreadableDueTimeFailsNamingTheRowNeverAsTheEpoch() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: registered)
        let plan = PlanTerms(type: "arbitraryDates", dates: ["2027-03-02", "2027-04-02"])
        let view = try await fixture.schedule(card, amount: 700, currency: "USD", plan: plan, merchant: merchant, now: registered)
        let damaged = view.steps[0].id
        try await fixture.database.sql.run("UPDATE schedule_steps SET due_at = '2027-03-02 at nine' WHERE id = \(damaged)")

        let failure = await error { _ = try await fixture.store.steps(scheduleID: view.schedule.id) }
        #expect(failure == .unreadable(table: "schedule_steps", id: damaged, column: "due_at", value: "2027-03-02 at nine"))
        try await fixture.database.sql.run("UPDATE schedule_steps SET due_at = \(Timestamp.string(view.steps[0].dueAt)) WHERE id = \(damaged)")
        #expect(try await fixture.store.steps(scheduleID: view.schedule.id).map(\.id) == view.steps.map(\.id))
    }

    @Test func aPlanThatIsNotAStoredPlanFailsNamingTheRowWithoutEchoingTheColumn() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: registered)
        let plan = PlanTerms(type: "delayedOnce", startDate: "2027-03-02")
        let damaged = try await fixture.schedule(card, amount: 700, currency: "USD", plan: plan, merchant: merchant, now: registered).schedule
        let newer = try await fixture.schedule(card, amount: 800, currency: "USD", plan: plan, merchant: merchant, now: registered).schedule
        try await fixture.database.sql.run("UPDATE schedules SET stored_plan = 'not a plan 4242424242424242' WHERE id = \(damaged.id)")
        try await fixture.database.sql.run(#"UPDATE schedules SET stored_plan = '{"v":2,"rule":"FREQ=DAILY"}' WHERE id = \#(newer.id)"#)

        let garbled = await error { _ = try await fixture.store.schedule(merchantID: merchant.id, id: damaged.id) }
        #expect(garbled == .unreadable(table: "schedules", id: damaged.id, column: "stored_plan", value: nil))
        #expect(!"\(String(describing: garbled))".contains("4242"))
        let versioned = await error { _ = try await fixture.store.schedule(merchantID: merchant.id, id: newer.id) }
        #expect(versioned == .unreadable(table: "schedules", id: newer.id, column: "stored_plan", value: "v=2"))
    }

    @Test func aRunChargesTheReadableStepsAndCountsTheUnreadableOnesWithoutStopping() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: registered)
        let plan = PlanTerms(type: "delayedOnce", startDate: "2027-03-02")
        var views: [ScheduleView] = []
        for amount in [700, 800, 900] as [Int64] {
            views.append(try await fixture.schedule(card, amount: amount, currency: "USD", plan: plan, merchant: merchant, now: registered))
        }
        let newerPlan = views[0].schedule.id
        let newerCurrency = views[1].steps[0].id
        try await fixture.database.sql.run(#"UPDATE schedules SET stored_plan = '{"v":2}' WHERE id = \#(newerPlan)"#)
        try await fixture.database.sql.run("UPDATE schedule_steps SET currency = 'XBT' WHERE id = \(newerCurrency)")

        let summary = try await silentRunner(fixture).run(ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02")))
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(summary.stepsUnreadable == 2)
        #expect(summary.settled == false)
        #expect(try await fixture.sandbox.transactionCount == 1)
        // Not charged, unchanged, and free again for the next run (or a newer build).
        let untouched = try await fixture.count(
            """
            SELECT count(*) AS n FROM schedule_steps WHERE status = 'scheduled' AND attempts = 0 AND lease_owner IS NULL
                AND id IN (\(views[0].steps[0].id), \(newerCurrency))
            """)
        #expect(untouched == 2)
    }

    @Test func aRunGoesOnPastAnOpenEndedScheduleItCannotReadAndLeavesItAsItIs() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: registered)
        let weekly = PlanTerms(type: "weekly", startDate: "2027-03-08", endType: "never", day: 1)
        let newer = try await fixture.schedule(card, amount: 500, currency: "USD", plan: weekly, merchant: merchant, now: registered).schedule
        _ = try await fixture.schedule(
            card, amount: 700, currency: "USD", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: registered)
        try await fixture.database.sql.run(#"UPDATE schedules SET stored_plan = '{"v":2}' WHERE id = \#(newer.id)"#)
        let stepsBefore = try await fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE schedule_id = \(newer.id)")

        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.horizonDays = 800
        let summary = try await silentRunner(fixture).run(options)
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(summary.schedulesExtended == 0)
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE schedule_id = \(newer.id)") == stepsBefore)
    }
}
