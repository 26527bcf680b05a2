import Foundation
import Payments
import PostgresNIO
@testable import Scheduler
import Synchronization
import Testing
import Vault
@testable import VaultPostgres

/// The runner's groups written a few statements per group: what one-by-one writes guarantee still
/// holds: lease checks per step, a schedule completed once, past-due policies, the audit chain
/// intact, and a step the server refuses failing alone.
@Suite(.enabled(if: BillingDatabase.available, "needs VAULT_TEST_DATABASE_URL"))
struct PostgresChargeGroupTests {
    static let due = Timestamp.parse("2027-03-02T09:00:00.000Z")!
    static let asOf = Timestamp.parse("2027-03-03T00:00:00.000Z")!
    static let owner = "host-a:1:a"

    /// Every due step claimed by ``owner``, in schedule (plan index) then step order.
    static func claimAll(_ database: BillingDatabase) async throws -> [DueStep] {
        let now = Date()
        let claimed = try await database.store.claimDueSteps(
            asOf: asOf, merchantID: nil, owner: owner, now: now, leaseUntil: now.addingTimeInterval(300), limit: 100, isOwnerGone: { _ in false })
        return claimed.sorted { ($0.schedule.description ?? "", $0.step.sequence) < ($1.schedule.description ?? "", $1.step.sequence) }
    }

    /// Gives `stepID`'s lease to another runner (as a takeover after expiry would).
    static func stealLease(of stepID: String, in database: BillingDatabase) async throws {
        try await database.store.write { write in
            try await write.run("UPDATE schedule_steps SET lease_owner = 'host-b:2:taker' WHERE id = \(stepID)")
        }
    }

    @Test func anAttemptGroupWritesOnlyTheStepsStillLeasedToItsRunner() async throws {
        let database = try await BillingDatabase()
        try await database.schedules(3, stepsEach: 1, due: Self.due)
        let dues = try await Self.claimAll(database)
        try await Self.stealLease(of: dues[1].step.id, in: database)
        let attempts = dues.map { database.attempt($0, owner: Self.owner) }
        let errors = try await database.store.write { write in try await PostgresStore.recordAttemptGroup(attempts, on: write) }
        #expect(errors[0] == nil && errors[2] == nil)
        #expect((errors[1] as? StepLeaseError) == .leaseLost(stepID: dues[1].step.id))
        #expect(try await database.count("SELECT count(*) AS n FROM transactions WHERE status = 'pending'") == 2)
        #expect(try await database.count("SELECT count(*) AS n FROM schedule_steps WHERE status = 'processing' AND attempts = 1") == 2)
        #expect(try await database.count("SELECT count(*) AS n FROM transactions WHERE step_id = \(dues[1].step.id)") == 0)
        await database.drop()
    }

    @Test func anAttemptTheServerRefusesFailsAloneAndTheOthersOfTheGroupAreWritten() async throws {
        let database = try await BillingDatabase()
        try await database.schedules(3, stepsEach: 1, due: Self.due)
        let dues = try await Self.claimAll(database)
        var attempts = dues.map { database.attempt($0, owner: Self.owner) }
        // The same idempotency key twice: the group's statement is refused, then each is written alone.
        attempts[2].transaction.idempotencyKey = attempts[1].transaction.idempotencyKey
        let errors = try await database.store.recordAttempts(attempts)
        #expect(errors[0] == nil && errors[1] == nil)
        #expect(errors[2]?.isPostgresUniqueViolation == true)
        #expect(try await database.count("SELECT count(*) AS n FROM transactions") == 2)
        #expect(try await database.count("SELECT count(*) AS n FROM schedule_steps WHERE status = 'processing'") == 2)
        await database.drop()
    }

    @Test func anOutcomeGroupCompletesEachScheduleOnceAppliesPastDueAndKeepsTheAuditChainIntact() async throws {
        let database = try await BillingDatabase()
        // plan 0: three steps, all approved (completes at its last); plan 1: two steps, one lease
        // lost (does not complete); plan 2: one step, hard decline with policy `continue` (past due).
        try await database.schedules(1, stepsEach: 3, due: Self.due)
        try await database.schedules(1, stepsEach: 2, due: Self.due.addingTimeInterval(10))
        try await database.schedules(1, stepsEach: 1, due: Self.due.addingTimeInterval(20))
        let dues = try await Self.claimAll(database).sorted { ($0.step.dueAt, $0.step.sequence) < ($1.step.dueAt, $1.step.sequence) }
        #expect(dues.count == 6)
        let attempts = dues.map { database.attempt($0, owner: Self.owner) }
        #expect(try await database.store.recordAttempts(attempts).allSatisfy { $0 == nil })
        try await Self.stealLease(of: dues[3].step.id, in: database)
        var items = try zip(dues, attempts).prefix(5).map { due, attempt in
            try PreparedOutcome(database.approved(attempt, due: due, owner: Self.owner))
        }
        var declined = attempts[5].transaction
        declined.apply(GatewayResult(outcome: .declined(code: "card_declined", category: .hard), transactionID: "gw_d"), now: Date())
        items.append(
            try PreparedOutcome(
                AttemptOutcome(
                    outcome: StepOutcome(transaction: declined, stepStatus: .failed, pastDuePolicy: .continue), step: dues[5].step,
                    schedule: dues[5].schedule,
                    audit: AuditEntry(merchantID: database.merchantID, actor: "runner", action: "charge.declined", objectType: "transaction",
                        objectID: declined.id),
                    leaseOwner: Self.owner)))
        let group = items
        let results = try await database.store.write { write in try await PostgresStore.recordOutcomeGroup(group, on: write) }
        #expect(results.map { try? $0.get() } == [
            RecordedOutcome(), RecordedOutcome(), RecordedOutcome(scheduleCompleted: true), nil, RecordedOutcome(),
            RecordedOutcome(schedulePastDue: true),
        ])
        #expect(throws: StepLeaseError.leaseLost(stepID: dues[3].step.id)) { try results[3].get() }
        #expect(try await database.store.schedule(merchantID: database.merchantID, id: dues[0].schedule.id)?.status == .completed)
        #expect(try await database.store.schedule(merchantID: database.merchantID, id: dues[3].schedule.id)?.status == .active)
        #expect(try await database.store.schedule(merchantID: database.merchantID, id: dues[5].schedule.id)?.status == .pastDue)
        #expect(try await database.count("SELECT count(*) AS n FROM webhook_events WHERE type = 'transaction.approved'") == 4)
        #expect(try await database.count("SELECT count(*) AS n FROM webhook_events WHERE type = 'transaction.declined'") == 1)
        #expect(try await database.count("SELECT count(*) AS n FROM webhook_events WHERE type = 'schedule.completed'") == 1)
        #expect(try await database.count("SELECT count(*) AS n FROM webhook_events WHERE type = 'schedule.past_due'") == 1)
        #expect(try await database.count("SELECT count(*) AS n FROM webhook_events WHERE last_error IS NOT NULL") == 0)
        #expect(try await database.count("SELECT count(*) AS n FROM transactions WHERE status = 'approved'") == 4)
        #expect(try await database.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner = \(Self.owner)") == 0)
        // Three schedule.created, four charge.approved, a charge.declined, schedule.completed, schedule.past_due.
        #expect(try await database.count("SELECT count(*) AS n FROM audit_events") == 10)
        #expect(try await database.store.verifyAuditChain() == .intact(events: 10))
        await database.drop()
    }

    /// The statements `recordAttempts` and `recordOutcomes` send for a run's group of `size` steps,
    /// each on a schedule of its own.
    static func statementsOfAGroup(size: Int) async throws -> (attempts: [String], outcomes: [String]) {
        let database = try await BillingDatabase()
        try await database.schedules(size, stepsEach: 1, due: Self.due)
        let dues = try await Self.claimAll(database)
        let attempts = dues.map { database.attempt($0, owner: Self.owner) }
        let attemptCounter = PostgresStatementCounter()
        let errors = try await PostgresStatementCounter.$current.withValue(attemptCounter) {
            try await database.store.recordAttempts(attempts)
        }
        #expect(errors.allSatisfy { $0 == nil })
        let outcomes = zip(dues, attempts).map { due, attempt in database.approved(attempt, due: due, owner: Self.owner) }
        let outcomeCounter = PostgresStatementCounter()
        let results = try await PostgresStatementCounter.$current.withValue(outcomeCounter) {
            try await database.store.recordOutcomes(outcomes)
        }
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(try await database.count("SELECT count(*) AS n FROM transactions WHERE status = 'approved'") == size)
        await database.drop()
        return (attemptCounter.statements, outcomeCounter.statements)
    }

    /// A group is one commit: its attempts are one transaction and its outcomes another, and the
    /// statements they take do not grow with the group (4 steps or 32, the same round trips); the
    /// audit chain's head is locked last.
    @Test func aGroupOfAttemptsAndAGroupOfOutcomesAreOneCommitEachOfAFixedNumberOfStatements() async throws {
        let small = try await Self.statementsOfAGroup(size: 4)
        let large = try await Self.statementsOfAGroup(size: 32)
        for statements in [small.attempts, small.outcomes, large.attempts, large.outcomes] {
            #expect(statements.filter { $0.hasPrefix("BEGIN") }.count == 1, "\(statements)")
            #expect(statements.filter { $0 == "COMMIT" }.count == 1, "\(statements)")
            #expect(statements.last == "COMMIT")
            #expect(!statements.contains { $0.hasPrefix("ROLLBACK") }, "\(statements)")
        }
        // The merchant's chain head, which every writer of the merchant on any server waits on, is
        // locked after every other row of the outcomes (schedules, steps, transactions, events).
        let outcomes = large.outcomes
        let firstHead = try #require(outcomes.firstIndex { $0.contains("FROM audit_chains") && $0.contains("FOR UPDATE") }, "\(outcomes)")
        let lastOther = try #require(outcomes.lastIndex { statement in
            ["schedules", "schedule_steps", "transactions", "webhook_events"].contains { statement.contains($0) }
                && !statement.contains("audit_events")
        })
        #expect(lastOther < firstHead, "\(outcomes)")
        #expect(large.attempts.count == small.attempts.count, "\(large.attempts)")
        #expect(large.outcomes.count == small.outcomes.count, "\(large.outcomes)")
    }

    @Test func groupedAndOneByOneWritesOfTheSameRunLeaveTheSameRows() async throws {
        var snapshots: [[String]] = []
        for grouped in [true, false] {
            let database = try await BillingDatabase()
            database.store.writesChargeGroups.store(grouped, ordering: .relaxed)
            try await database.schedules(4, stepsEach: 3, due: Self.due)
            let dues = try await Self.claimAll(database)
            let attempts = dues.map { database.attempt($0, owner: Self.owner) }
            #expect(try await database.store.recordAttempts(attempts).allSatisfy { $0 == nil })
            let outcomes = zip(dues, attempts).map { due, attempt in database.approved(attempt, due: due, owner: Self.owner) }
            let results = try await database.store.recordOutcomes(outcomes)
            #expect(try results.filter { try $0.get().scheduleCompleted }.count == 4)
            #expect(try await database.store.verifyAuditChain() == .intact(events: 4 + 12 + 4))
            snapshots.append(try await database.store.read { connection in
                try await connection.rows(
                    """
                    SELECT 'step ' || s.description || ' ' || st.sequence || ' ' || st.status || ' ' || coalesce(st.lease_owner, '-') || ' '
                        || st.attempts || ' ' || t.status || ' ' || t.gateway_transaction_id || ' ' || sc.status AS line
                    FROM schedule_steps st JOIN schedules sc ON sc.id = st.schedule_id JOIN schedules s ON s.id = st.schedule_id
                    JOIN transactions t ON t.step_id = st.id
                    UNION ALL SELECT 'webhook ' || type || ' ' || coalesce(last_error, '-') FROM webhook_events
                    UNION ALL SELECT 'audit ' || chain_seq || ' ' || action FROM audit_events
                    ORDER BY 1
                    """, logger: BillingDatabase.logger
                ).map { try $0.string("line").replacingOccurrences(of: #"gw_stp_\S+"#, with: "gw", options: .regularExpression) }
            })
            await database.drop()
        }
        #expect(snapshots[0] == snapshots[1])
    }

    @Test func rowSetValuesReachPostgresUnchanged() async throws {
        let database = try await BillingDatabase()
        let values: [String?] = ["plain", "quote \" and backslash \\", "line\nbreak\ttab\u{01}", "Zürich 東京 🙂", "", nil, "</script>", "ff00"]
        var rows = PostgresRowSet([("value", "text"), ("hex", "bytea")])
        for value in values { rows.append([value, "ff00"]) }
        var query = PostgresQuery(unsafeSQL: "SELECT v.value, v.hex, v.ord FROM ")
        rows.appendSelect(to: &query)
        query.sql += " AS v ORDER BY v.ord"
        let read = try await database.store.read { connection in
            try await connection.rows(query, logger: BillingDatabase.logger).map { (try $0.optionalString("value"), try $0.blob("hex")) }
        }
        #expect(read.map(\.0) == values)
        #expect(read.allSatisfy { $0.1 == [0xFF, 0x00] })
        // The JSON is valid for any parser, not only PostgreSQL's.
        let parsed = try JSONSerialization.jsonObject(with: Data(PostgresRowSet.json([values]).utf8)) as? [[Any]]
        #expect(parsed?.first?.count == values.count)
        await database.drop()
    }

    @Test func aPastDuePolicyBesideAnotherStepOfItsScheduleIsWrittenOneByOne() throws {
        func outcome(_ step: String, schedule: String, failing: Bool) throws -> AttemptOutcome {
            let transaction = Transaction(
                id: "txn_\(step)", merchantID: "mer_test", type: .sale, amount: 100, currency: try Currency(code: "EUR"), gateway: "sandbox",
                now: Date(), idempotencyKey: step, orderReference: step)
            let plan = Schedule(
                id: schedule, merchantID: "mer_test", secureCardReference: "card_1", status: .active,
                plan: PlanTerms(type: "arbitraryDates", dates: ["2027-03-02"]), amount: 100, currency: try Currency(code: "EUR"),
                description: nil, externalID: nil, receiptEmail: nil, receiptPhone: nil, materializedThrough: nil, createdAt: Date(),
                updatedAt: Date(), confirmedAt: Date(), expiresAt: nil, pausedAt: nil, sequence: 0)
            let due = ScheduleStep(
                id: step, scheduleID: schedule, sequence: 1, date: CivilDate(iso: "2027-03-02")!, dueAt: Self.due, amount: 100,
                currency: try Currency(code: "EUR"), status: .processing, attempts: 1, nextAttemptAt: nil)
            return AttemptOutcome(
                outcome: StepOutcome(transaction: transaction, stepStatus: failing ? .failed : .approved, pastDuePolicy: failing ? .cancel : nil),
                step: due, schedule: plan,
                audit: AuditEntry(merchantID: "mer_test", actor: "runner", action: "charge", objectType: "transaction", objectID: transaction.id))
        }
        let sameSchedule = [try outcome("a", schedule: "s1", failing: true), try outcome("b", schedule: "s1", failing: false)]
        #expect(!PostgresStore.isGroupable(sameSchedule, [0, 1]))
        let otherSchedules = [try outcome("a", schedule: "s1", failing: true), try outcome("b", schedule: "s2", failing: false)]
        #expect(PostgresStore.isGroupable(otherSchedules, [0, 1]))
        let sameStep = [try outcome("a", schedule: "s1", failing: false), try outcome("a", schedule: "s2", failing: false)]
        #expect(!PostgresStore.isGroupable(sameStep, [0, 1]))
    }
}
