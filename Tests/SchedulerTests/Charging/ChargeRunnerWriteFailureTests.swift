import Foundation
import Payments
@testable import Scheduler
import Testing
import Vault
@testable import VaultSQLite

/// When one step's attempt or outcome cannot be written, the run charges every other step
/// exactly once, never charges that step twice, ends, and the next run picks the step up.
@Suite struct ChargeRunnerWriteFailureTests {
    static let now = Timestamp.parse("2027-03-01T00:00:00Z")!

    struct Setup {
        let fixture: ChargingFixture
        let stepIDs: [String]
        let scheduleIDs: [String]
        let options: ChargeRunner.Options

        func refuse(_ event: String, when condition: String) async throws {
            try await fixture.refuse("refuse", event, when: condition)
        }

        func stopRefusing(_ event: String) async throws {
            try await fixture.stopRefusing("refuse", event)
        }

        func step(_ index: Int) async throws -> ScheduleStep {
            try #require(try await fixture.steps(scheduleIDs[index]).first { $0.id == stepIDs[index] })
        }

        func count(_ sql: SQLiteQuery) async throws -> Int {
            try await fixture.count(sql)
        }
    }

    /// `count` approving `delayedOnce` steps due 2027-03-02, charged two at a time in batches of three.
    static func setUp(count: Int) async throws -> Setup {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: now)
        var stepIDs: [String] = []
        var scheduleIDs: [String] = []
        for _ in 0..<count {
            let view = try await fixture.schedule(
                card, amount: 500, currency: "USD", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: now)
            stepIDs.append(try #require(view.steps.first).id)
            scheduleIDs.append(view.schedule.id)
        }
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.concurrency = 2
        options.batchSize = 3
        options.retryBackoff = .milliseconds(1)
        options.inDoubtGrace = 3600
        return Setup(fixture: fixture, stepIDs: stepIDs, scheduleIDs: scheduleIDs, options: options)
    }

    @Test func aStepWhoseAttemptCannotBeWrittenIsNotChargedAndTheRunEnds() async throws {
        let setup = try await Self.setUp(count: 7)
        let refused = "INSERT ON transactions"
        try await setup.refuse(refused, when: "NEW.step_id = '\(setup.stepIDs[4])'")
        let runner = setup.fixture.runner()
        let first = try await runner.run(setup.options)
        #expect(first.outcomes[ChargeOutcome.approved.rawValue]?.count == 6)
        #expect(first.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 1)
        #expect(try await setup.fixture.sandbox.transactionCount == 6)
        let skipped = try await setup.step(4)
        #expect(skipped.status == .scheduled && skipped.attempts == 0)
        #expect(try await setup.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner IS NOT NULL OR lease_until IS NOT NULL") == 0)

        try await setup.stopRefusing(refused)
        let second = try await runner.run(setup.options)
        #expect(second.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(try await setup.fixture.sandbox.transactionCount == 7)
        #expect(try await setup.count("SELECT count(*) AS n FROM transactions WHERE status = 'approved'") == 7)
        #expect(try await setup.count("SELECT count(DISTINCT step_id) AS n FROM transactions") == 7)
    }

    @Test func aStepWhoseOutcomeCannotBeWrittenIsSettledByTheNextRunWithoutASecondSale() async throws {
        let setup = try await Self.setUp(count: 7)
        let refused = "UPDATE OF status ON schedule_steps"
        try await setup.refuse(refused, when: "NEW.id = '\(setup.stepIDs[1])' AND NEW.status = 'approved'")
        let runner = setup.fixture.runner()
        let first = try await runner.run(setup.options)
        #expect(first.outcomes[ChargeOutcome.approved.rawValue]?.count == 6)
        #expect(first.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 1)
        #expect(try await setup.fixture.sandbox.transactionCount == 7, "the sale was made; only its outcome is missing")
        let open = try await setup.step(1)
        #expect(open.status == .processing && open.attempts == 1)

        try await setup.stopRefusing(refused)
        let second = try await runner.run(setup.options)
        #expect(second.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(try await setup.fixture.sandbox.transactionCount == 7, "settled by look-up, not sent again")
        let settled = try await setup.step(1)
        #expect(settled.status == .approved && settled.attempts == 1)
        #expect(try await setup.count("SELECT count(*) AS n FROM transactions") == 7)
        #expect(try await setup.count("SELECT count(*) AS n FROM webhook_events WHERE type = 'transaction.approved'") == 7)
        #expect(try await setup.fixture.store.verifyAuditChain() == .intact(events: Int64(try await setup.count("SELECT count(*) AS n FROM audit_events"))))
    }

    @Test func everyStepOfManyBatchesIsChargedOnceWithMixedOutcomes() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let registered = Timestamp.parse("2027-01-01T00:00:00Z")!
        let cards = [
            try await fixture.card("ok", pan: "4242424242424242", merchant: merchant, now: registered),
            try await fixture.card("hard", pan: "4000000000000002", merchant: merchant, now: registered),
            try await fixture.card("soft", pan: "4000000000009995", merchant: merchant, now: registered),
            try await fixture.card("old", pan: "5555555555554444", merchant: merchant, now: registered),
        ]
        for index in 0..<40 {
            _ = try await fixture.schedule(
                cards[index % 4], amount: 100, currency: "USD", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant,
                now: registered)
        }
        // Expired by the due date (a schedule cannot be created on such a card, so the card is
        // replaced afterwards; editing the expiry column would fail its integrity check): declined locally.
        _ = try await fixture.cards.update(
            merchantReference: "old",
            with: SecureCardUpdate(source: CardSource(method: "ocr", card: CardInput(number: "5555555555554444", expiryDate: "0227"))),
            merchant: merchant, actor: "test", now: registered)
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.concurrency = 3
        options.batchSize = 4
        let summary = try await fixture.runner().run(options)
        #expect(summary.processed == 40 && summary.settled)
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 10)
        #expect(summary.outcomes[ChargeOutcome.failed.rawValue]?.count == 10)
        #expect(summary.outcomes[ChargeOutcome.retryScheduled.rawValue]?.count == 10)
        #expect(summary.outcomes[ChargeOutcome.expiredCard.rawValue]?.count == 10)
        #expect(summary.schedulesCompleted == 10 && summary.schedulesPastDue == 20)
        #expect(try await fixture.sandbox.transactionCount == 30)
        #expect(try await fixture.count("SELECT count(*) AS n FROM transactions") == 40)
        #expect(try await fixture.count("SELECT count(DISTINCT step_id) AS n FROM transactions") == 40)
        #expect(try await fixture.count("SELECT count(*) AS n FROM webhook_events WHERE type IN ('transaction.approved', 'transaction.declined')") == 40)
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner IS NOT NULL") == 0)
        #expect(try await fixture.store.verifyAuditChain() == .intact(events: Int64(try await fixture.count("SELECT count(*) AS n FROM audit_events"))))
    }
}
