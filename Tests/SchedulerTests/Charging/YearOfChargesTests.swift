import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultSQLite

/// A year of schedules of every plan type, two merchants in two zones, the sandbox's test cards
/// for approve / hard / soft / expired, charged by calling the runner once per day with
/// successive `asOf` instants. Expected states are computed here independently, with Foundation's
/// `Calendar` as the date oracle.
@Suite struct YearOfChargesTests {
    struct Expected {
        var id: String
        var card: Kind
        var dates: [DateComponents]
        var amount: Int64
        var currency: String
    }

    enum Kind { case approve, hard, soft, expiresJune }

    static let delays = [1, 3, 5]

    static func oracleDates(zone: String, from: String, through: String, matching: (DateComponents) -> Bool, limit: Int = .max) -> [DateComponents] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = calendar.timeZone
        var day = formatter.date(from: from)!
        let end = formatter.date(from: through)!
        var found: [DateComponents] = []
        while day <= end, found.count < limit {
            let components = calendar.dateComponents([.year, .month, .day, .weekday], from: day)
            if matching(components) { found.append(components) }
            day = calendar.date(byAdding: .day, value: 1, to: day)!
        }
        return found
    }

    static func lastDay(_ c: DateComponents) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(from: DateComponents(year: c.year, month: c.month, day: 1))!
        return calendar.range(of: .day, in: .month, for: date)!.count
    }

    @Test func aYearOfDailyRunsSettlesEveryStepAsExpected() async throws {
        let fixture = try await ChargingFixture()
        let now = Timestamp.parse("2027-01-01T00:00:00Z")!
        let london = try await fixture.merchant("london", zone: "Europe/London")
        let newYork = try await fixture.merchant("newyork", zone: "America/New_York")
        let approveL = try await fixture.card("a-l", pan: "4242424242424242", merchant: london, now: now)
        let approveN = try await fixture.card("a-n", pan: "5555555555554444", merchant: newYork, now: now)
        let hard = try await fixture.card("hard", pan: "4000000000000002", merchant: london, now: now)
        let soft = try await fixture.card("soft", pan: "4000000000009995", merchant: newYork, now: now)
        let soft2 = try await fixture.card("soft2", pan: "4000000000000119", merchant: london, now: now)
        let june = try await fixture.card("june", pan: "4111111111111111", expiry: "0627", merchant: newYork, now: now)

        var expected: [Expected] = []
        func add(_ view: ScheduleView, _ kind: Kind, zone: String, amount: Int64, currency: String, oracle: [DateComponents]) {
            expected.append(Expected(id: view.schedule.id, card: kind, dates: oracle, amount: amount, currency: currency))
        }
        // weekly on Mondays, 20 steps
        add(try await fixture.schedule(approveL, amount: 1000, currency: "GBP", plan: PlanTerms(type: "weekly", startDate: "2027-01-01", endType: "count", endCount: 20, day: 1), merchant: london, now: now),
            .approve, zone: "Europe/London", amount: 1000, currency: "GBP",
            oracle: Self.oracleDates(zone: "Europe/London", from: "2027-01-01", through: "2027-12-31", matching: { $0.weekday == 2 }, limit: 20))
        // monthly on the 31st (clamped), through the year
        add(try await fixture.schedule(approveN, amount: 2500, currency: "USD", plan: PlanTerms(type: "monthly", startDate: "2027-01-01", endType: "date", endDate: "2027-12-31", day: 31), merchant: newYork, now: now),
            .approve, zone: "America/New_York", amount: 2500, currency: "USD",
            oracle: Self.oracleDates(zone: "America/New_York", from: "2027-01-01", through: "2027-12-31", matching: { $0.day == Self.lastDay($0) }))
        // quarterly, month 2 day 15, open-ended (JPY, no minor units)
        add(try await fixture.schedule(approveL, amount: 5000, currency: "JPY", plan: PlanTerms(type: "quarterly", startDate: "2027-01-01", endType: "never", month: 2, day: 15), merchant: london, now: now),
            .approve, zone: "Europe/London", amount: 5000, currency: "JPY",
            oracle: Self.oracleDates(zone: "Europe/London", from: "2027-01-01", through: "2027-12-31", matching: { [2, 5, 8, 11].contains($0.month!) && $0.day == 15 }))
        // annual Feb 29 → Feb 28 in 2027
        add(try await fixture.schedule(approveN, amount: 9900, currency: "USD", plan: PlanTerms(type: "annual", startDate: "2027-01-01", endType: "count", endCount: 1, month: 2, day: 29), merchant: newYork, now: now),
            .approve, zone: "America/New_York", amount: 9900, currency: "USD",
            oracle: Self.oracleDates(zone: "America/New_York", from: "2027-01-01", through: "2027-12-31", matching: { $0.month == 2 && $0.day == 28 }))
        // delayed once, hard decline
        add(try await fixture.schedule(hard, amount: 700, currency: "GBP", plan: PlanTerms(type: "delayedOnce", startDate: "2027-06-15"), merchant: london, now: now),
            .hard, zone: "Europe/London", amount: 700, currency: "GBP",
            oracle: Self.oracleDates(zone: "Europe/London", from: "2027-06-15", through: "2027-06-15", matching: { _ in true }))
        // arbitrary dates, soft decline (insufficient funds), the last one's retries run past the year's end
        add(try await fixture.schedule(soft, amount: 1500, currency: "USD", plan: PlanTerms(type: "arbitraryDates", dates: ["2027-03-01", "2027-07-04", "2027-12-28"]), merchant: newYork, now: now),
            .soft, zone: "America/New_York", amount: 1500, currency: "USD",
            oracle: [DateComponents(year: 2027, month: 3, day: 1), DateComponents(year: 2027, month: 7, day: 4), DateComponents(year: 2027, month: 12, day: 28)])
        // weekly Sundays (day 0) through March, soft processing errors
        add(try await fixture.schedule(soft2, amount: 300, currency: "GBP", plan: PlanTerms(type: "weekly", startDate: "2027-01-01", endType: "date", endDate: "2027-03-31", day: 0), merchant: london, now: now),
            .soft, zone: "Europe/London", amount: 300, currency: "GBP",
            oracle: Self.oracleDates(zone: "Europe/London", from: "2027-01-01", through: "2027-03-31", matching: { $0.weekday == 1 }))
        // monthly on the 1st with a card that expires in June
        add(try await fixture.schedule(june, amount: 1200, currency: "USD", plan: PlanTerms(type: "monthly", startDate: "2027-01-01", endType: "count", endCount: 12, day: 1), merchant: newYork, now: now),
            .expiresJune, zone: "America/New_York", amount: 1200, currency: "USD",
            oracle: Self.oracleDates(zone: "America/New_York", from: "2027-01-01", through: "2027-12-31", matching: { $0.day == 1 }))

        let runner = fixture.runner()
        var day = CivilDate(iso: "2027-01-01")!
        let last = CivilDate(iso: "2027-12-31")!
        var unsettledRuns = 0
        var options = ChargeRunner.Options(asOf: now)
        options.concurrency = 8
        options.retryBackoff = .milliseconds(1)
        while day <= last {
            options.asOf = ChargingFixture.endOfDay(day.iso)
            let summary = try await runner.run(options)
            if !summary.settled {
                if unsettledRuns == 0 { print("UNSETTLED", day.iso, summary.table) }
                unsettledRuns += 1
            }
            day = day.adding(days: 1)
        }
        #expect(unsettledRuns == 0)

        let end = CivilDate(iso: "2027-12-31")!
        var approvedTotals: [String: Int64] = [:]
        for schedule in expected {
            let steps = try await fixture.steps(schedule.id).filter { $0.date <= end }
            #expect(steps.map { [$0.date.year, $0.date.month, $0.date.day] } == schedule.dates.map { [$0.year!, $0.month!, $0.day!] },
                    "dates of \(schedule.card) schedule")
            for step in steps {
                let date = step.date
                switch schedule.card {
                case .approve:
                    #expect(step.status == .approved && step.attempts == 1, "step \(date.iso)")
                    approvedTotals[schedule.currency, default: 0] += schedule.amount
                case .hard:
                    #expect(step.status == .failed && step.attempts == 1, "step \(date.iso)")
                case .soft:
                    let attemptDates = [0, 1, 4, 9].map { date.adding(days: $0) }
                    let done = attemptDates.filter { $0 <= end }.count
                    if done == 4 {
                        #expect(step.status == .failed && step.attempts == 4, "step \(date.iso): \(step.status) \(step.attempts)")
                    } else {
                        #expect(step.status == .retryPending && step.attempts == done, "step \(date.iso): \(step.status) \(step.attempts)")
                    }
                case .expiresJune:
                    if date.month <= 6 {
                        #expect(step.status == .approved && step.attempts == 1, "step \(date.iso)")
                        approvedTotals[schedule.currency, default: 0] += schedule.amount
                    } else {
                        #expect(step.status == .failed && step.attempts == 1, "step \(date.iso)")
                    }
                }
                let attempts = try await fixture.count("SELECT count(*) AS n FROM transactions WHERE step_id = \(step.id)")
                #expect(attempts == step.attempts, "one transaction per attempt for \(date.iso)")
            }
        }
        let recorded = try await fixture.database.sql.query(
            "SELECT currency, CAST(sum(amount) AS BIGINT) AS total FROM transactions WHERE step_id IS NOT NULL AND status = 'approved' GROUP BY currency")
        var recordedTotals: [String: Int64] = [:]
        for row in recorded { recordedTotals[try row.string("currency")] = try row.int64("total") }
        #expect(recordedTotals == approvedTotals)
        let expiredLocally = try await fixture.count("SELECT count(*) AS n FROM transactions WHERE decline_code = 'expired_card' AND gateway_transaction_id IS NULL")
        #expect(expiredLocally == 6)
        #expect(try await fixture.sandbox.transactionCount == (try await fixture.count("SELECT count(*) AS n FROM transactions WHERE gateway_transaction_id IS NOT NULL")))
        let completed = try await fixture.count("SELECT count(*) AS n FROM schedules WHERE status = 'completed'")
        #expect(completed == 3)
        let pastDue = try await fixture.count("SELECT count(*) AS n FROM schedules WHERE status = 'past_due'")
        #expect(pastDue == 4)
        let webhooks = try await fixture.count("SELECT count(*) AS n FROM webhook_events WHERE type IN ('transaction.approved', 'transaction.declined')")
        #expect(webhooks == (try await fixture.count("SELECT count(*) AS n FROM transactions WHERE step_id IS NOT NULL")))
        // An audit event for every charge, exactly one per attempt, written with its outcome.
        let chargesWithoutOneEvent = try await fixture.count("""
            SELECT count(*) AS n FROM transactions t WHERE t.step_id IS NOT NULL
              AND (SELECT count(*) FROM audit_events a WHERE a.object_id = t.id AND a.action LIKE 'charge.%') != 1
            """)
        #expect(chargesWithoutOneEvent == 0)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'charge.attempt_started'") == 0)
        guard case .intact = try await fixture.store.verifyAuditChain() else {
            Issue.record("audit chain broken")
            return
        }
    }
}
