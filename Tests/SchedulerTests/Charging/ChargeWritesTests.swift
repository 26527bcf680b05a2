import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite

/// A batch's attempts and a group of outcomes are each written in one write, and each step in
/// them ends written or not on its own: one that cannot be written neither loses nor doubles
/// the others.
@Suite struct ChargeWritesTests {
    static let registered = Timestamp.parse("2027-01-01T00:00:00Z")!
    static let asOf = ChargingFixture.endOfDay("2027-03-02")

    /// Steps due 2027-03-02, one `delayedOnce` schedule per card, claimed in the order given.
    struct World {
        let fixture: ChargingFixture
        let merchant: Merchant
        let dues: [DueStep]

        func count(_ sql: SQLiteQuery) async throws -> Int {
            try await fixture.count(sql)
        }

        func step(_ index: Int) async throws -> ScheduleStep {
            try #require(try await fixture.steps(dues[index].schedule.id).first)
        }

        /// A trigger that makes the database refuse `event` (a `BEFORE` trigger condition) for one row.
        func refuse(_ name: String, _ event: String, when condition: String) async throws {
            try await fixture.refuse(name, event, when: condition)
        }

        /// Writes the attempts of every step; all must be written.
        func recordAttempts() async throws -> [Transaction] {
            let attempts = dues.map { ChargeWritesTests.attempt($0, merchant: merchant) }
            let errors = try await fixture.store.recordAttempts(attempts)
            #expect(errors.allSatisfy { $0 == nil })
            return attempts.map(\.transaction)
        }
    }

    static func world(_ cards: [(pan: String, expiry: String)]) async throws -> World {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        var scheduleIDs: [String] = []
        for (index, card) in cards.enumerated() {
            let secureCard = try await fixture.card("c\(index)", pan: card.pan, expiry: card.expiry, merchant: merchant, now: registered)
            let view = try await fixture.schedule(
                secureCard, amount: 1000 + Int64(index), currency: "EUR", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"),
                merchant: merchant, now: registered)
            scheduleIDs.append(view.schedule.id)
        }
        let now = Date()
        let claimed = try await fixture.store.claimDueSteps(
            asOf: asOf, merchantID: nil, owner: "test-runner", now: now, leaseUntil: now.addingTimeInterval(300), limit: 100,
            isOwnerGone: { _ in false })
        let dues = try scheduleIDs.map { id in try #require(claimed.first { $0.schedule.id == id }) }
        return World(fixture: fixture, merchant: merchant, dues: dues)
    }

    static func attempt(_ due: DueStep, merchant: Merchant) -> ChargeAttempt {
        let step = due.step
        var transaction = Transaction(
            id: Transaction.makeID(), merchantID: merchant.id, type: .sale, amount: step.amount, currency: step.currency, gateway: "sandbox",
            now: Date(), idempotencyKey: "\(step.id)-a1", orderReference: ChargeRunner.orderReference(stepID: step.id, attempt: 1))
        transaction.secureCardReference = due.schedule.secureCardReference
        transaction.scheduleID = due.schedule.id
        transaction.stepID = step.id
        transaction.attempt = 1
        return ChargeAttempt(transaction: transaction, step: step)
    }

    /// The outcome the runner writes for `result`.
    static func outcome(_ transaction: Transaction, _ result: GatewayResult, due: DueStep, world: World) -> AttemptOutcome {
        var transaction = transaction
        transaction.apply(result, now: Date())
        let stepOutcome = world.fixture.runner().stepOutcome(transaction, due: due).stepOutcome
        return AttemptOutcome(
            outcome: stepOutcome, step: due.step, schedule: due.schedule,
            audit: AuditEntry(merchantID: world.merchant.id, actor: "runner", action: "charge.\(transaction.status.rawValue)", objectType: "transaction",
                              objectID: transaction.id))
    }

    static let approved = GatewayResult(outcome: .approved, transactionID: "sbx_1")
    static let hardDecline = GatewayResult(outcome: .declined(code: "card_declined", category: .hard), transactionID: "sbx_2")
    static let softDecline = GatewayResult(outcome: .declined(code: "insufficient_funds", category: .soft), transactionID: "sbx_3")
    static let expiredLocally = GatewayResult(outcome: .declined(code: "expired_card", category: .hard))

    @Test func aGroupMixingApprovedDeclinedSoftDeclinedAndExpiredIsWrittenInOneWriteEachAsItsOwn() async throws {
        let world = try await Self.world([
            ("4242424242424242", "1230"), ("4000000000000002", "1230"), ("4000000000009995", "1230"), ("4242424242424242", "1230"),
        ])
        let transactions = try await world.recordAttempts()
        let results = [Self.approved, Self.hardDecline, Self.softDecline, Self.expiredLocally]
        let outcomes = zip(zip(transactions, results), world.dues).map { pair, due in Self.outcome(pair.0, pair.1, due: due, world: world) }
        let commits = world.fixture.database.sqlite?.database.commitCount
        let recorded = try await world.fixture.store.recordOutcomes(outcomes).map { try $0.get() }
        if let sqlite = world.fixture.database.sqlite, let commits {
            #expect(sqlite.database.commitCount == commits + 1)
        }
        #expect(recorded == [
            RecordedOutcome(scheduleCompleted: true), RecordedOutcome(schedulePastDue: true), RecordedOutcome(), RecordedOutcome(schedulePastDue: true),
        ])
        var statuses: [StepStatus] = []
        for index in 0..<4 { statuses.append(try await world.step(index).status) }
        #expect(statuses == [.approved, .failed, .retryPending, .failed])
        var scheduleStatuses: [String?] = []
        for due in world.dues {
            scheduleStatuses.append(try await world.fixture.database.sql.queryOne(
                """
                SELECT status FROM schedules WHERE id = \(due.schedule.id)
                """)?.string("status"))
        }
        #expect(scheduleStatuses == ["completed", "past_due", "active", "past_due"])
        #expect(try await world.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner IS NOT NULL") == 0)
        let events = try await world.fixture.database.sql.query("SELECT type, count(*) AS n FROM webhook_events WHERE type NOT LIKE 'secure_card.%' GROUP BY type")
            .map { (try $0.string("type"), try $0.int("n")) }
        #expect(Dictionary(uniqueKeysWithValues: events) == [
            "transaction.approved": 1, "transaction.declined": 3, "schedule.completed": 1, "schedule.past_due": 2,
        ])
        #expect(try await world.count("SELECT count(*) AS n FROM audit_events WHERE action IN ('charge.approved', 'charge.declined')") == 4)
        #expect(try await world.count("SELECT count(*) AS n FROM audit_events WHERE action IN ('schedule.completed', 'schedule.past_due')") == 3)
        #expect(try await world.fixture.store.verifyAuditChain() == .intact(events: Int64(try await world.count("SELECT count(*) AS n FROM audit_events"))))
    }

    @Test func anAttemptThatCannotBeWrittenLeavesItsStepAsItWasAndTheOthersWritten() async throws {
        let world = try await Self.world(Array(repeating: ("4242424242424242", "1230"), count: 4))
        let refused = world.dues[2].step.id
        try await world.refuse("refuse_attempt", "INSERT ON transactions", when: "NEW.step_id = '\(refused)'")
        let attempts = world.dues.map { Self.attempt($0, merchant: world.merchant) }
        let errors = try await world.fixture.store.recordAttempts(attempts)
        #expect(errors.map { $0 == nil } == [true, true, false, true])
        #expect(try await world.count("SELECT count(*) AS n FROM transactions") == 3)
        #expect(try await world.count("SELECT count(*) AS n FROM transactions WHERE step_id = \(refused)") == 0)
        let untouched = try await world.step(2)
        #expect(untouched.status == .scheduled && untouched.attempts == 0)
        for index in [0, 1, 3] {
            let step = try await world.step(index)
            #expect(step.status == .processing && step.attempts == 1)
        }
    }

    @Test func anOutcomeThatCannotBeWrittenLeavesItsAttemptOpenAndTheOthersWritten() async throws {
        let world = try await Self.world(Array(repeating: ("4242424242424242", "1230"), count: 4))
        let transactions = try await world.recordAttempts()
        let refused = world.dues[1].step.id
        try await world.refuse("refuse_outcome", "UPDATE OF status ON schedule_steps", when: "NEW.id = '\(refused)' AND NEW.status = 'approved'")
        let outcomes = zip(transactions, world.dues).map { Self.outcome($0, Self.approved, due: $1, world: world) }
        let results = try await world.fixture.store.recordOutcomes(outcomes)
        #expect(results.map { (try? $0.get()) != nil } == [true, false, true, true])
        let open = try await world.step(1)
        #expect(open.status == .processing && open.attempts == 1)
        #expect(try await world.count("SELECT count(*) AS n FROM transactions WHERE step_id = \(refused) AND status = 'pending'") == 1)
        #expect(try await world.count("SELECT count(*) AS n FROM transactions WHERE status = 'approved'") == 3)
        #expect(try await world.count("SELECT count(*) AS n FROM webhook_events WHERE type = 'transaction.approved'") == 3)
        #expect(try await world.count("SELECT count(*) AS n FROM webhook_events WHERE payload LIKE \("%" + transactions[1].id + "%")") == 0)
        #expect(try await world.count("SELECT count(*) AS n FROM audit_events WHERE object_id = \(transactions[1].id)") == 0)
        #expect(try await world.count("SELECT count(*) AS n FROM schedules WHERE status = 'completed'") == 3)
        #expect(try await world.fixture.store.verifyAuditChain() == .intact(events: Int64(try await world.count("SELECT count(*) AS n FROM audit_events"))))
    }

    @Test func anOpenAttemptWrittenAgainIsResetToPendingNotDoubled() async throws {
        let world = try await Self.world([("4242424242424242", "1230")])
        let first = try #require(try await world.recordAttempts().first)
        var again = ChargeAttempt(transaction: first, step: world.dues[0].step)
        again.transaction.updatedAt = Date().addingTimeInterval(60)
        let errors = try await world.fixture.store.recordAttempts([again])
        #expect(errors.count == 1 && errors[0] == nil)
        #expect(try await world.count("SELECT count(*) AS n FROM transactions") == 1)
        #expect(try await world.count(
            """
            SELECT count(*) AS n FROM transactions WHERE status = 'pending'
                AND updated_at = \(Timestamp.string(again.transaction.updatedAt))
            """) == 1)
    }
}
