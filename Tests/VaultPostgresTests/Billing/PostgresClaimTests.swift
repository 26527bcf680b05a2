import Foundation
import Payments
import PostgresNIO
@testable import Scheduler
import Testing
import Vault
@testable import VaultPostgres

/// Claims across processes on PostgreSQL: a claim beside another's row locks takes other steps; a
/// runner that lost its lease writes nothing over the taker's work; one refused outcome does not
/// undo the others of its write. What every engine guarantees of claims (disjoint, limits, expiry,
/// dead owners) is pinned by the store conformance suite.
@Suite(.enabled(if: BillingDatabase.available, "needs VAULT_TEST_DATABASE_URL"))
struct PostgresClaimTests {
    static let due = Timestamp.parse("2027-03-02T09:00:00.000Z")!
    static let asOf = Timestamp.parse("2027-03-03T00:00:00.000Z")!

    /// The crash test's finding: a run claims two batches at once, and both looked at the same
    /// first dead-owner steps; the one that found them locked claimed nothing, and the run took
    /// that for "nothing left", ending after one batch with the rest still leased to the dead.
    @Test func aClaimBesideAnotherTakesOtherStepsOfTheSameDeadOwner() async throws {
        let database = try await BillingDatabase()
        let other = try await BillingDatabase.open(database.url)
        defer { other.close() }
        let steps = try await database.schedules(6, stepsEach: 100, due: Self.due)
        let dead = "host-a:1:dead"
        let now = Date()
        #expect(try await Self.claimAll(database.store, owner: dead, now: now).count == steps.count)
        let (held, taken) = try await other.write { write in
            let held = try await write.rows("SELECT id FROM schedule_steps ORDER BY seq LIMIT 256 FOR UPDATE").map { try $0.string("id") }
            let taken = try await database.store.claimDueSteps(
                asOf: Self.asOf, merchantID: nil, owner: "host-a:3:new", now: now, leaseUntil: now.addingTimeInterval(300), limit: 256,
                isOwnerGone: { $0 == dead })
            return (held, taken.map(\.step.id))
        }
        #expect(held.count == 256)
        #expect(taken.count == 256)
        #expect(Set(taken).isDisjoint(with: held))
        await database.drop()
    }

    @Test func aRunnerThatLostItsLeaseCanWriteNeitherAttemptNorOutcome() async throws {
        let database = try await BillingDatabase()
        let other = try await BillingDatabase.open(database.url)
        defer { other.close() }
        try await database.schedules(1, stepsEach: 1, due: Self.due)
        let now = Date()
        let slow = try #require(try await database.store.claimDueSteps(
            asOf: Self.asOf, merchantID: nil, owner: "host-a:1:slow", now: now, leaseUntil: now.addingTimeInterval(10), limit: 1,
            isOwnerGone: { _ in false }).first)
        let slowAttempt = database.attempt(slow, owner: "host-a:1:slow")
        #expect(try await database.store.recordAttempts([slowAttempt]).allSatisfy { $0 == nil })
        // The slow runner's lease expires; another machine takes the step over (its open attempt).
        let taker = try #require(try await other.claimDueSteps(
            asOf: Self.asOf, merchantID: nil, owner: "host-b:2:taker", now: now.addingTimeInterval(11), leaseUntil: now.addingTimeInterval(300),
            limit: 1, isOwnerGone: { _ in false }).first)
        #expect(taker.openAttempt?.id == slowAttempt.transaction.id)
        // The slow runner may not write a new attempt any more ...
        var second = database.attempt(slow, owner: "host-a:1:slow")
        second.transaction.idempotencyKey += "-again"
        let refusedAttempt = try await database.store.recordAttempts([second])
        #expect((refusedAttempt.first ?? nil) as? StepLeaseError == .leaseLost(stepID: slow.step.id))
        // ... the taker settles the step ...
        let takerOutcome = database.approved(ChargeAttempt(transaction: try #require(taker.openAttempt), step: taker.step), due: taker, owner: "host-b:2:taker")
        let written = try await other.recordOutcomes([takerOutcome])
        #expect(try written[0].get() == RecordedOutcome(scheduleCompleted: true))
        // ... and the slow runner's late answer (declined) is refused, leaving the taker's outcome.
        var late = slowAttempt.transaction
        late.apply(GatewayResult(outcome: .declined(code: "card_declined", category: .hard), transactionID: "gw_late"), now: Date())
        let lateOutcome = AttemptOutcome(
            outcome: StepOutcome(transaction: late, stepStatus: .failed), step: slow.step, schedule: slow.schedule,
            audit: AuditEntry(merchantID: database.merchantID, actor: "runner", action: "charge.declined", objectType: "transaction", objectID: late.id),
            leaseOwner: "host-a:1:slow")
        let refused = try await database.store.recordOutcomes([lateOutcome])
        #expect(throws: StepLeaseError.leaseLost(stepID: slow.step.id)) { try refused[0].get() }
        let step = try #require(try await database.store.steps(scheduleID: slow.schedule.id).first)
        #expect(step.status == .approved)
        let transaction = try #require(try await database.store.transaction(merchantID: database.merchantID, id: slowAttempt.transaction.id))
        #expect(transaction.status == .approved)
        #expect(transaction.gatewayTransactionID == "gw_\(slow.step.id)")
        #expect(try await database.count("SELECT count(*) AS n FROM transactions") == 1)
        #expect(try await database.count("SELECT count(*) AS n FROM webhook_events WHERE type = 'transaction.declined'") == 0)
        await database.drop()
    }

    @Test func oneOutcomeTheDatabaseRefusesDoesNotUndoTheOthersOfItsWrite() async throws {
        let database = try await BillingDatabase()
        try await database.schedules(3, stepsEach: 1, due: Self.due)
        let now = Date()
        let owner = "host-a:1:a"
        let claimed = try await database.store.claimDueSteps(
            asOf: Self.asOf, merchantID: nil, owner: owner, now: now, leaseUntil: now.addingTimeInterval(300), limit: 10, isOwnerGone: { _ in false })
        let dues = claimed.sorted { $0.schedule.description ?? "" < $1.schedule.description ?? "" }
        let attempts = dues.map { database.attempt($0, owner: owner) }
        #expect(try await database.store.recordAttempts(attempts).allSatisfy { $0 == nil })
        // The server refuses the middle step's `transaction.approved` event (a trigger): by then its
        // step, its transaction and its audit event were written, and must all roll back.
        let refusedStep = dues[1].step.id
        try await database.store.write { write in
            try await write.run(
                """
                CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.type = 'transaction.approved' AND strpos(NEW.payload, '\(unescaped: refusedStep)') > 0 THEN
                RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$
                """)
            try await write.run("CREATE TRIGGER refuse_event BEFORE INSERT ON webhook_events FOR EACH ROW EXECUTE FUNCTION refuse_event()")
        }
        let outcomes = zip(dues, attempts).map { due, attempt in database.approved(attempt, due: due, owner: owner) }
        let results = try await database.store.recordOutcomes(outcomes)
        #expect((try? results[0].get()) != nil)
        #expect((try? results[1].get()) == nil)
        #expect((try? results[2].get()) != nil)
        for (index, due) in dues.enumerated() {
            let step = try #require(try await database.store.steps(scheduleID: due.schedule.id).first)
            let transaction = try #require(try await database.store.transaction(merchantID: database.merchantID, id: attempts[index].transaction.id))
            #expect(step.status == (index == 1 ? .processing : .approved))
            #expect(transaction.status == (index == 1 ? .pending : .approved))
        }
        // Events of the refused one rolled back with it: two approvals, two completions.
        #expect(try await database.count("SELECT count(*) AS n FROM webhook_events WHERE type = 'transaction.approved'") == 2)
        #expect(try await database.count("SELECT count(*) AS n FROM webhook_events WHERE type = 'schedule.completed'") == 2)
        #expect(try await database.count("SELECT count(*) AS n FROM audit_events WHERE action = 'charge.approved'") == 2)
        // The refused step is still leased to the runner (held until its run ends).
        #expect(try await database.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner = 'host-a:1:a'") == 1)
        await database.drop()
    }

    /// Claims batches of 50 until none is left; the ids claimed.
    /// `gone`: the one owner taken for dead.
    static func claimAll(_ store: PostgresStore, owner: String, now: Date, gone: String? = nil) async throws -> [String] {
        var ids: [String] = []
        while true {
            let batch = try await store.claimDueSteps(
                asOf: asOf, merchantID: nil, owner: owner, now: now, leaseUntil: now.addingTimeInterval(300), limit: 50,
                isOwnerGone: { $0 == gone })
            if batch.isEmpty { return ids }
            ids += batch.map(\.step.id)
        }
    }
}
