import Foundation
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultPostgres
@testable import VaultSQLite

/// A schedule's plan is stored in its own versioned form (`StoredPlan`), not as the API request's
/// JSON: renaming an API field cannot change stored plans, and plans stored by earlier builds
/// (the request's JSON) still read, before and after the migration that rewrites them.
@Suite struct StoredPlanTests {
    let monthly = PlanTerms(
        type: "monthly", startDate: "2027-01-31", endType: "count", endCount: 12, day: 32, hour: 9, minute: 30, timeZone: "Europe/London")
    let dated = PlanTerms(type: "arbitraryDates", hour: 0, minute: 0, dates: ["2027-03-02", "2027-04-02"], timeZone: "UTC")

    @Test func theStoredFormOfAPlanIsPinnedByItsOwnFieldNames() throws {
        #expect(
            try StoredPlan(monthly).storedText()
                == #"{"day":32,"endAfter":12,"endKind":"count","hour":9,"kind":"monthly","minute":30,"start":"2027-01-31","v":1,"zone":"Europe/London"}"#)
        #expect(
            try StoredPlan(dated).storedText()
                == #"{"dates":["2027-03-02","2027-04-02"],"hour":0,"kind":"arbitraryDates","minute":0,"v":1,"zone":"UTC"}"#)
        #expect(try StoredPlan(PlanTerms(type: "weekly", endType: "never")).storedText() == #"{"endKind":"never","kind":"weekly","v":1}"#)
    }

    @Test func aStoredPlanReadsBackAsThePlanItWasMadeFrom() throws {
        for plan in [monthly, dated, PlanTerms(type: "annual", startDate: "2027-02-01", endType: "date", endDate: "2030-02-01", month: 2, day: 1)] {
            #expect(try StoredPlan.plan(storedText: try StoredPlan(plan).storedText(), scheduleID: "sch_1") == plan)
        }
    }

    @Test func aPlanStoredByAnEarlierBuildAsTheRequestJSONStillReads() throws {
        let legacy = #"{"day":32,"endCount":12,"endType":"count","hour":9,"minute":30,"startDate":"2027-01-31","timeZone":"Europe\/London","type":"monthly"}"#
        #expect(try StoredPlan.plan(storedText: legacy, scheduleID: "sch_1") == monthly)
    }

    @Test func aPlanOfAnUnknownVersionOrNotAPlanIsAnErrorNamingTheSchedule() {
        #expect(throws: StoredRowError.unreadable(table: "schedules", id: "sch_1", column: "stored_plan", value: "v=2")) {
            try StoredPlan.plan(storedText: #"{"v":2,"kind":"monthly"}"#, scheduleID: "sch_1")
        }
        #expect(throws: StoredRowError.unreadable(table: "schedules", id: "sch_2", column: "stored_plan", value: nil)) {
            try StoredPlan.plan(storedText: "[1,2]", scheduleID: "sch_2")
        }
        #expect(throws: StoredRowError.unreadable(table: "schedules", id: "sch_3", column: "stored_plan", value: nil)) {
            try StoredPlan.plan(storedText: #"{"v":1,"kind":7}"#, scheduleID: "sch_3")
        }
    }

    /// The request JSON an earlier build stored for `plan` (its encoder: sorted keys, absent fields left out).
    func legacyText(_ plan: PlanTerms) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(EarlierBuildPlan(plan)), as: UTF8.self)
    }

    /// The plan type of an earlier build, with which it wrote and read `schedules.plan`: the API's
    /// field names, every field optional, synthesized coding.
    struct EarlierBuildPlan: Codable {
        var type: String?
        var startDate: String?
        var endType: String?
        var endDate: String?
        var endCount: Int?
        var month: Int?
        var day: Int?
        var hour: Int?
        var minute: Int?
        var dates: [String]?
        var timeZone: String?

        init(_ plan: PlanTerms) {
            (type, startDate, endType, endDate, endCount) = (plan.type, plan.startDate, plan.endType, plan.endDate, plan.endCount)
            (month, day, hour, minute, dates, timeZone) = (plan.month, plan.day, plan.hour, plan.minute, plan.dates, plan.timeZone)
        }

        var plan: PlanTerms {
            PlanTerms(
                type: type, startDate: startDate, endType: endType, endDate: endDate, endCount: endCount, month: month, day: day,
                hour: hour, minute: minute, dates: dates, timeZone: timeZone)
        }
    }

    /// Runs the filling statement of this round's plan migration again, on the fixture's engine,
    /// over rows written since (as an earlier build writes them: `plan` only).
    func fillStoredPlans(_ fixture: ChargingFixture) async throws {
        switch fixture.database.engine {
        case .sqlite:
            #expect(Schema.migrations.contains { $0.id == 30 && $0.name == "schedule plans in their stored form" })
            try await fixture.database.sql.run("\(unescaped: Schema.storedPlanFill)")
        case .postgres:
            let migration = try #require(PostgresSchema.migrations.first { $0.name == "schedule plans in their stored form" })
            for statement in migration.statements where !statement.hasPrefix("ALTER TABLE") {
                try await fixture.database.sql.run("\(unescaped: statement)")
            }
        }
    }

    @Test func schedulesStoredByAnEarlierBuildReadTheSameBeforeAndAfterTheMigration() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let now = Timestamp.parse("2027-01-01T00:00:00Z")!
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: now)
        var stored: [Schedule] = []
        for plan in [monthly, dated] {
            let schedule = try await fixture.schedule(card, amount: 700, currency: "USD", plan: plan, merchant: merchant, now: now).schedule
            try await fixture.database.sql.run(
                "UPDATE schedules SET plan = \(try legacyText(schedule.plan)), stored_plan = NULL WHERE id = \(schedule.id)")
            stored.append(schedule)
        }
        let current = try await fixture.schedule(
            card, amount: 900, currency: "USD", plan: PlanTerms(type: "weekly", startDate: "2027-01-04", endType: "never", day: 1),
            merchant: merchant, now: now).schedule
        stored.append(current)
        let currentRow = try #require(try await fixture.database.sql.queryOne("SELECT plan, stored_plan FROM schedules WHERE id = \(current.id)"))
        let currentText = try currentRow.string("stored_plan")
        #expect(currentText == #"{"day":1,"endKind":"never","hour":9,"kind":"weekly","minute":0,"start":"2027-01-04","v":1,"zone":"UTC"}"#)
        // The `plan` column this build writes is what a server of an earlier build reads: the request's JSON.
        #expect(try currentRow.string("plan") == (try legacyText(current.plan)))
        #expect(try JSONDecoder().decode(EarlierBuildPlan.self, from: Data(try currentRow.string("plan").utf8)).plan == current.plan)

        for schedule in stored {
            #expect(try await fixture.store.schedule(merchantID: merchant.id, id: schedule.id)?.plan == schedule.plan)
        }
        try await fillStoredPlans(fixture)
        for schedule in stored {
            #expect(try await fixture.store.schedule(merchantID: merchant.id, id: schedule.id)?.plan == schedule.plan)
            let row = try #require(try await fixture.database.sql.queryOne("SELECT plan, stored_plan FROM schedules WHERE id = \(schedule.id)"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(try row.string("stored_plan").utf8)) as? [String: Any])
            #expect(object["v"] as? Int == 1)
            #expect(object["type"] == nil && object["timeZone"] == nil)
            // `plan` is left for the earlier builds still running.
            #expect(try row.string("plan") == (try legacyText(schedule.plan)))
        }
        // The row written in the stored form is left as it was.
        #expect(try await fixture.database.sql.queryOne("SELECT stored_plan FROM schedules WHERE id = \(current.id)")?.string("stored_plan") == currentText)
    }

    @Test func aPlanARowHoldsInBothColumnsIsReadFromItsStoredForm() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let now = Timestamp.parse("2027-01-01T00:00:00Z")!
        let card = try await fixture.card("c", pan: "4242424242424242", merchant: merchant, now: now)
        let schedule = try await fixture.schedule(card, amount: 700, currency: "USD", plan: monthly, merchant: merchant, now: now).schedule
        // A `plan` column this build would misread must not matter while `stored_plan` is there.
        try await fixture.database.sql.run("UPDATE schedules SET plan = '{}' WHERE id = \(schedule.id)")
        #expect(try await fixture.store.schedule(merchantID: merchant.id, id: schedule.id)?.plan == schedule.plan)
        // Without it, the row is an earlier build's, and its `plan` is read (here: an empty plan, as that build wrote it).
        try await fixture.database.sql.run("UPDATE schedules SET stored_plan = '{\"v\":3}' WHERE id = \(schedule.id)")
        await #expect(throws: StoredRowError.unreadable(table: "schedules", id: schedule.id, column: "stored_plan", value: "v=3")) {
            try await fixture.store.schedule(merchantID: merchant.id, id: schedule.id)
        }
    }
}
