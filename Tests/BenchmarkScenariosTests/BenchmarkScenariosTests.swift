import BenchmarkScenarios
import Foundation
import Scheduler
import Testing
import Vault

/// The benchmark workloads, run once at a small size: they build and do the work they claim, so the
/// figures `make benchmarks` prints measure what their names say.
struct BenchmarkScenariosTests {
    @Test func thePlanMixHasEveryPlanTypeAndAThousandSteps() {
        #expect(Set(PlanMix.plans.map(\.type)) == Set(PlanType.allCases))
        #expect(PlanMix.stepCount == 1_000)
    }

    @Test func theFoundationBaselineReadsTheSameDatesAsThePlan() {
        for plan in PlanMix.plans {
            let planDates = plan.stepDates.map(FoundationPlanDates.date)
            var baseline = FoundationPlanDates(plan: plan)
            var foundationDates: [Date] = []
            while foundationDates.count <= planDates.count, let date = baseline.next() { foundationDates.append(date) }
            #expect(foundationDates == planDates, "\(plan.type)")
        }
    }

    @Test func cyclingStepsStartOverAfterTheLastPlan() {
        var steps = CyclingSteps(plans: PlanMix.plans) { $0.stepDates.makeIterator() }
        let first = steps.next()
        for _ in 1..<PlanMix.stepCount { _ = steps.next() }
        #expect(steps.next() == first)
    }

    @Test(arguments: [256, 1])
    func aGroupCommitRoundWritesOneRowPerWriter(maxBatchSize: Int) async throws {
        let fixture = try GroupCommitFixture(maxBatchSize: maxBatchSize)
        defer { fixture.remove() }
        #expect(await fixture.writeRound(0) == GroupCommitFixture.writers)
        #expect(await fixture.writeRound(1) == GroupCommitFixture.writers)
    }

    @Test func aRegistrationRoundRegistersAndInsertsTheWholeBatch() async throws {
        let fixture = try await RegistrationFixture(batch: 12)
        defer { fixture.remove() }
        #expect(await fixture.register(round: 0) == 12)
        #expect(await fixture.insertPlain(round: 0) == 12)
        #expect(await fixture.register(round: 0) == 0, "the same merchant references are taken")
    }

    /// The PostgreSQL server of the test passes (`make test` starts one and sets it).
    static let postgresServer = ProcessInfo.processInfo.environment["VAULT_TEST_DATABASE_URL"]

    @Test(.enabled(if: postgresServer != nil, "VAULT_TEST_DATABASE_URL not set"))
    func requestLimitTakesOnPostgreSQLAreAllowedSeriallyAndConcurrently() async throws {
        let fixture = try await PostgresRequestLimitFixture(serverURL: try #require(Self.postgresServer))
        do {
            #expect(try await fixture.takeSerially(64) == 64)
            #expect(try await fixture.takeConcurrently(64, workers: 16) == 64)
        } catch {
            await fixture.remove()
            throw error
        }
        await fixture.remove()
    }

    @Test func theChargeLoopOnSQLiteChargesEveryDueStepOnce() async throws {
        try await chargesEveryDueStepOnce(.sqlite)
    }

    @Test(.enabled(if: postgresServer != nil, "VAULT_TEST_DATABASE_URL not set"), arguments: [ChargeLoopFixture.Writes.inGroups, .oneStepAtATime])
    func theChargeLoopOnPostgreSQLWithTwoRunnersChargesEveryDueStepOnce(writes: ChargeLoopFixture.Writes) async throws {
        try await chargesEveryDueStepOnce(.postgres(serverURL: try #require(Self.postgresServer), runners: 2, writes: writes))
    }

    /// 150 due steps (two schedules; more than one write group): every attempt and approved
    /// outcome is written, and once charged no step is due again.
    private func chargesEveryDueStepOnce(_ engine: ChargeLoopFixture.Engine) async throws {
        let fixture = try await ChargeLoopFixture.create(engine)
        do {
            try await fixture.addDueSteps(150)
            #expect(try await fixture.chargeDueSteps() == 150)
            #expect(try await fixture.chargeDueSteps() == 0, "nothing is left due")
        } catch {
            await fixture.remove()
            throw error
        }
        await fixture.remove()
    }
}
