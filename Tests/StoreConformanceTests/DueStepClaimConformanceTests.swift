import Foundation
import Payments
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `ChargeRunStore` claims of due steps, on the run's engine: several stores on one database (as
/// several runner processes or machines) lease disjoint steps; a claim takes at most its limit;
/// leases that expire, or whose owner is gone, are taken over; `releaseLeases` frees only the
/// owner's leases.
@Suite("Store conformance: due-step claims")
struct DueStepClaimConformanceTests {
    static let due = Timestamp.parse("2027-03-02T09:00:00.000Z")!
    static let asOf = Timestamp.parse("2027-03-03T00:00:00.000Z")!

    /// One claim of up to `limit` due steps by `owner`, leased for 300 s from `now`.
    static func claim(
        _ store: any VaultStorage, owner: String, now: Date, limit: Int = 50, gone: @escaping @Sendable (String) -> Bool = { _ in false }
    ) async throws -> [DueStep] {
        let claimed = try await store.claimDueSteps(
            asOf: asOf, merchantID: nil, owner: owner, now: now, leaseUntil: now.addingTimeInterval(300), limit: limit, isOwnerGone: gone)
        #expect(claimed.unreadable.isEmpty)
        return claimed.due
    }

    /// Claims batches of 50 until none is left; the ids claimed. `gone`: the one owner taken for dead.
    static func claimAll(_ store: any VaultStorage, owner: String, now: Date, gone: String? = nil) async throws -> [String] {
        var ids: [String] = []
        while true {
            let batch = try await claim(store, owner: owner, now: now, gone: { $0 == gone })
            if batch.isEmpty { return ids }
            ids += batch.map(\.step.id)
        }
    }

    @Test func twoStoresClaimingAtOnceGetDisjointSetsThatCoverEveryDueStep() async throws {
        let fixture = try await StoreFixture()
        let steps = try await fixture.schedules(20, stepsEach: 100, due: Self.due)
        let now = Date()
        let store = fixture.store
        let (a, b) = try await fixture.withAnotherStore { other in
            async let first = Self.claimAll(store, owner: "host-a:1:a", now: now)
            async let second = Self.claimAll(other, owner: "host-b:2:b", now: now)
            return try await (first, second)
        }
        #expect(Set(a).isDisjoint(with: Set(b)))
        #expect(a.count + b.count == steps.count)
        #expect(Set(a).union(b) == Set(steps.map(\.id)))
        // Both took part (each claim is a batch of 50 out of 2,000).
        #expect(!a.isEmpty && !b.isEmpty)
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner IS NULL") == 0)
    }

    @Test func aClaimTakesAtMostItsLimitAndOnlyStepsDueByItsInstant() async throws {
        let fixture = try await StoreFixture()
        let dueSteps = try await fixture.schedules(2, stepsEach: 5, due: Self.due)
        try await fixture.schedules(1, stepsEach: 3, due: Self.asOf.addingTimeInterval(3600))  // not due yet
        let now = Date()
        let first = try await Self.claim(fixture.store, owner: "host-a:1:a", now: now, limit: 4)
        #expect(first.count == 4)
        let rest = try await Self.claim(fixture.store, owner: "host-a:1:a", now: now, limit: 100)
        #expect(rest.count == dueSteps.count - 4)
        #expect(Set(first.map(\.step.id)).union(rest.map(\.step.id)) == Set(dueSteps.map(\.id)))
        #expect(try await Self.claim(fixture.store, owner: "host-a:1:a", now: now, limit: 100).isEmpty)
    }

    @Test func anExpiredLeaseIsTakenOverAndALiveOneIsNot() async throws {
        let fixture = try await StoreFixture()
        try await fixture.schedules(1, stepsEach: 3, due: Self.due)
        let now = Date()
        let claimed = try await fixture.store.claimDueSteps(
            asOf: Self.asOf, merchantID: nil, owner: "host-a:1:a", now: now, leaseUntil: now.addingTimeInterval(300), limit: 10,
            isOwnerGone: { _ in false })
        #expect(claimed.count == 3)
        try await fixture.withAnotherStore { other in
            let whileLive = try await other.claimDueSteps(
                asOf: Self.asOf, merchantID: nil, owner: "host-b:2:b", now: now.addingTimeInterval(299), leaseUntil: now.addingTimeInterval(600),
                limit: 10, isOwnerGone: { _ in false })
            #expect(whileLive.isEmpty)
            let afterExpiry = try await other.claimDueSteps(
                asOf: Self.asOf, merchantID: nil, owner: "host-b:2:b", now: now.addingTimeInterval(301), leaseUntil: now.addingTimeInterval(600),
                limit: 10, isOwnerGone: { _ in false })
            #expect(Set(afterExpiry.map(\.step.id)) == Set(claimed.map(\.step.id)))
        }
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner = 'host-b:2:b'") == 3)
    }

    @Test func aLeaseOfADeadOwnerIsFreeAtOnce() async throws {
        let fixture = try await StoreFixture()
        try await fixture.schedules(1, stepsEach: 2, due: Self.due)
        let now = Date()
        _ = try await Self.claim(fixture.store, owner: "host-a:1:dead", now: now, limit: 10)
        let taken = try await Self.claim(fixture.store, owner: "host-a:3:new", now: now, limit: 10, gone: { $0 == "host-a:1:dead" })
        #expect(taken.count == 2)
    }

    @Test func twoRunnersTakingOverADeadOwnerAtOnceShareAllItsSteps() async throws {
        let fixture = try await StoreFixture()
        let steps = try await fixture.schedules(10, stepsEach: 100, due: Self.due)
        let dead = "host-a:1:dead"
        let now = Date()
        #expect(try await Self.claimAll(fixture.store, owner: dead, now: now).count == steps.count)
        let store = fixture.store
        let (a, b) = try await fixture.withAnotherStore { other in
            async let first = Self.claimAll(store, owner: "host-a:3:a", now: now, gone: dead)
            async let second = Self.claimAll(other, owner: "host-a:4:b", now: now, gone: dead)
            return try await (first, second)
        }
        #expect(Set(a).isDisjoint(with: Set(b)))
        #expect(Set(a).union(b) == Set(steps.map(\.id)))
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner = 'host-a:1:dead'") == 0)
    }

    @Test func deadOwnersStepsAreFoundBehindManyStepsOfLiveRunners() async throws {
        let fixture = try await StoreFixture()
        let steps = try await fixture.schedules(12, stepsEach: 100, due: Self.due)
        let now = Date()
        let live = try await Self.claim(fixture.store, owner: "host-b:1:live", now: now, limit: 1_100)
        #expect(live.count == 1_100)
        #expect(try await Self.claimAll(fixture.store, owner: "host-a:1:dead", now: now).count == steps.count - 1_100)
        let taken = try await Self.claimAll(fixture.store, owner: "host-a:3:new", now: now, gone: "host-a:1:dead")
        #expect(taken.count == steps.count - 1_100)
    }

    @Test func releasingLeasesFreesOnlyTheOwnersAndChangesNothingElse() async throws {
        let fixture = try await StoreFixture()
        try await fixture.schedules(1, stepsEach: 4, due: Self.due)
        let now = Date()
        let mine = try await Self.claim(fixture.store, owner: "host-a:1:a", now: now, limit: 2)
        let theirs = try await Self.claim(fixture.store, owner: "host-b:2:b", now: now, limit: 2)
        #expect(mine.count == 2 && theirs.count == 2)
        // The owner's release names one of its own steps and one of the other runner's.
        try await fixture.store.releaseLeases(stepIDs: [mine[0].step.id, theirs[0].step.id], owner: "host-a:1:a")
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner IS NULL") == 1)
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner = 'host-b:2:b'") == 2)
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE status = 'scheduled' AND attempts = 0") == 4)
        // The released step is due again at once, to anyone; the other runner's are not.
        let again = try await Self.claim(fixture.store, owner: "host-c:3:c", now: now, limit: 10)
        #expect(again.map(\.step.id) == [mine[0].step.id])
    }

    @Test func aClaimOfOneMerchantLeavesAnotherMerchantsSteps() async throws {
        let fixture = try await StoreFixture()
        try await fixture.schedules(1, stepsEach: 3, due: Self.due)
        let now = Date()
        let other = try await fixture.store.claimDueSteps(
            asOf: Self.asOf, merchantID: "mer_other", owner: "host-a:1:a", now: now, leaseUntil: now.addingTimeInterval(300), limit: 10,
            isOwnerGone: { _ in false })
        #expect(other.isEmpty)
        let own = try await fixture.store.claimDueSteps(
            asOf: Self.asOf, merchantID: fixture.merchantID, owner: "host-a:1:a", now: now, leaseUntil: now.addingTimeInterval(300), limit: 10,
            isOwnerGone: { _ in false })
        #expect(own.count == 3)
    }

    @Test func dueTotalsPerCurrencyEqualTheSumsOfTheDueSteps() async throws {
        let fixture = try await StoreFixture()
        let euro = try await fixture.schedules(3, stepsEach: 4, due: Self.due)
        let dollars = try await fixture.schedules(2, stepsEach: 3, due: Self.due, currency: "USD")
        try await fixture.schedules(1, stepsEach: 5, due: Self.due.addingTimeInterval(86_400 * 10))  // not due yet
        let totals = try await fixture.store.dueStepTotals(asOf: Self.due.addingTimeInterval(3600), merchantID: nil)
        #expect(totals.count == euro.count + dollars.count)
        #expect(totals.totals == ["EUR": euro.map(\.amount).reduce(0, +), "USD": dollars.map(\.amount).reduce(0, +)])
        let none = try await fixture.store.dueStepTotals(asOf: Self.due.addingTimeInterval(3600), merchantID: "mer_other")
        #expect(none.count == 0 && none.totals.isEmpty)
    }
}
