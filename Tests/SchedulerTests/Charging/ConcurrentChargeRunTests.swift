import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// Two runners on two stores over one database (two processes, or two nodes on PostgreSQL) charging
/// the same night at once: their leases keep every step charged exactly once.
@Suite struct ConcurrentChargeRunTests {
    static let registered = Timestamp.parse("2027-01-01T00:00:00Z")!

    @Test func twoRunnersOnTwoStoresAtOnceChargeEveryStepExactlyOnce() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let cards = [
            try await fixture.card("ok", pan: "4242424242424242", merchant: merchant, now: Self.registered),
            try await fixture.card("hard", pan: "4000000000000002", merchant: merchant, now: Self.registered),
            try await fixture.card("soft", pan: "4000000000009995", merchant: merchant, now: Self.registered),
        ]
        for index in 0..<30 {
            _ = try await fixture.schedule(
                cards[index % 3], amount: 100 + Int64(index), currency: "USD", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"),
                merchant: merchant, now: Self.registered)
        }
        let (second, secondStore) = try await fixture.secondRunner()
        defer { TestDatabase.close(secondStore) }
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.concurrency = 2
        options.batchSize = 3
        async let a = fixture.runner().run(options)
        async let b = second.run(options)
        let (first, other) = try await (a, b)

        #expect(first.processed + other.processed == 30, "\(first.outcomes.mapValues(\.count)) \(other.outcomes.mapValues(\.count))")
        let approved = (first.outcomes[ChargeOutcome.approved.rawValue]?.count ?? 0) + (other.outcomes[ChargeOutcome.approved.rawValue]?.count ?? 0)
        #expect(approved == 10, "\(first.outcomes.mapValues(\.count)) \(other.outcomes.mapValues(\.count))")
        #expect(try await fixture.sandbox.transactionCount == 30, "one sale per step, none twice")
        #expect(try await fixture.count("SELECT count(*) AS n FROM transactions") == 30)
        #expect(try await fixture.count("SELECT count(DISTINCT step_id) AS n FROM transactions") == 30)
        #expect(try await fixture.count("SELECT count(*) AS n FROM webhook_events WHERE type IN ('transaction.approved', 'transaction.declined')") == 30)
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE lease_owner IS NOT NULL") == 0)
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedules WHERE status = 'completed'") == 10)
        #expect(try await fixture.store.verifyAuditChain() == .intact(events: Int64(try await fixture.count("SELECT count(*) AS n FROM audit_events"))))
    }

    @Test func schedulesWhoseStepsTwoRunnersSettleAtOnceAreCompletedOnce() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("ok", pan: "4242424242424242", merchant: merchant, now: Self.registered)
        for _ in 0..<12 {
            _ = try await fixture.schedule(
                card, amount: 100, currency: "USD", plan: PlanTerms(type: "arbitraryDates", dates: ["2027-02-28", "2027-03-01", "2027-03-02"]),
                merchant: merchant, now: Self.registered)
        }
        let (second, secondStore) = try await fixture.secondRunner()
        defer { TestDatabase.close(secondStore) }
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.concurrency = 3
        options.batchSize = 2
        async let a = fixture.runner().run(options)
        async let b = second.run(options)
        let (first, other) = try await (a, b)

        #expect(first.processed + other.processed == 36)
        #expect(first.schedulesCompleted + other.schedulesCompleted == 12)
        #expect(try await fixture.sandbox.transactionCount == 36)
        #expect(try await fixture.count("SELECT count(DISTINCT step_id) AS n FROM transactions WHERE status = 'approved'") == 36)
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedules WHERE status = 'completed'") == 12)
        #expect(try await fixture.count("SELECT count(*) AS n FROM webhook_events WHERE type = 'schedule.completed'") == 12)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'schedule.completed'") == 12)
        #expect(try await fixture.store.verifyAuditChain() == .intact(events: Int64(try await fixture.count("SELECT count(*) AS n FROM audit_events"))))
    }

    @Test func twoRunnersExtendingTheSameOpenEndedSchedulesAtOnceAddEachStepOnce() async throws {
        // Steps materialized 14 days ahead: two Mondays at creation; each runner extends through 2027-03-16.
        let fixture = try await ChargingFixture(horizonDays: 14)
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let card = try await fixture.card("ok", pan: "4242424242424242", merchant: merchant, now: Self.registered)
        for _ in 0..<8 {
            _ = try await fixture.schedule(
                card, amount: 100, currency: "USD", plan: PlanTerms(type: "weekly", startDate: "2027-01-04", endType: "never", day: 1),
                merchant: merchant, now: Self.registered)
        }
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps") == 16)
        let (second, secondStore) = try await fixture.secondRunner()
        defer { TestDatabase.close(secondStore) }
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.horizonDays = 14
        options.concurrency = 2
        options.batchSize = 5
        async let a = fixture.runner().run(options)
        async let b = second.run(options)
        let (first, other) = try await (a, b)

        // Mondays 2027-01-04 through 2027-03-15 per schedule; 2027-01-04 through 2027-03-01 due.
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps") == 8 * 11)
        #expect(try await fixture.count("SELECT count(DISTINCT schedule_id || ' ' || date) AS n FROM schedule_steps") == 8 * 11)
        #expect(first.processed + other.processed == 8 * 9)
        #expect(try await fixture.sandbox.transactionCount == 8 * 9)
        #expect(try await fixture.count("SELECT count(DISTINCT step_id) AS n FROM transactions WHERE status = 'approved'") == 8 * 9)
        #expect(try await fixture.store.verifyAuditChain() == .intact(events: Int64(try await fixture.count("SELECT count(*) AS n FROM audit_events"))))
    }
}
