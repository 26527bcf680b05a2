import Foundation
import Scheduler
import Testing
import Vault

@Suite struct PlanStepsTests {
    func plan(_ type: PlanType, start: String, end: PlanEnd?, day: Int?, at hour: Int, _ minute: Int, in zone: String) throws -> Plan {
        try Plan(
            type: type, startDate: planDay(start), end: end, day: day,
            time: try #require(LocalTime(hour: hour, minute: minute)), timeZone: try #require(TimeZone(identifier: zone)))
    }

    @Test func newYorkSpringForwardMovesTheStepToEDT() throws {
        let monthly = try plan(.monthly, start: "2027-03-01", end: .count(2), day: 14, at: 2, 30, in: "America/New_York")
        let steps = monthly.steps(horizon: nil, limit: 10)
        #expect(steps.map(\.date.iso) == ["2027-03-14", "2027-04-14"])
        #expect(steps.map(\.dueAt) == [planInstant("2027-03-14T07:30:00Z"), planInstant("2027-04-14T06:30:00Z")])
    }

    @Test func newYorkFallBackTakesTheFirstInstant() throws {
        let weekly = try plan(.weekly, start: "2027-10-31", end: .count(3), day: 0, at: 1, 30, in: "America/New_York")
        #expect(weekly.steps(horizon: nil, limit: 10).map(\.dueAt) == [
            planInstant("2027-10-31T05:30:00Z"), planInstant("2027-11-07T05:30:00Z"), planInstant("2027-11-14T06:30:00Z"),
        ])
    }

    @Test func londonSpringForwardAndFallBack() throws {
        let spring = try plan(.weekly, start: "2027-03-21", end: .count(2), day: 0, at: 1, 30, in: "Europe/London")
        #expect(spring.steps(horizon: nil, limit: 10).map(\.dueAt) == [planInstant("2027-03-21T01:30:00Z"), planInstant("2027-03-28T01:30:00Z")])
        let autumn = try plan(.weekly, start: "2027-10-24", end: .count(3), day: 7, at: 1, 30, in: "Europe/London")
        #expect(autumn.steps(horizon: nil, limit: 10).map(\.dueAt) == [
            planInstant("2027-10-24T00:30:00Z"), planInstant("2027-10-31T00:30:00Z"), planInstant("2027-11-07T01:30:00Z"),
        ])
    }

    @Test func kathmanduStepsAreAtPlusFiveFortyFive() throws {
        let once = try plan(.delayedOnce, start: "2027-05-01", end: nil, day: nil, at: 9, 0, in: "Asia/Kathmandu")
        #expect(once.steps(horizon: nil, limit: 1) == [PlannedStep(sequence: 1, date: planDay("2027-05-01"), dueAt: planInstant("2027-05-01T03:15:00Z"))])
    }

    @Test func openEndedPlansStopAtTheHorizonInclusive() throws {
        let monthly = try plan(.monthly, start: "2027-01-01", end: .never, day: 1, at: 9, 0, in: "UTC")
        let firstHalf = monthly.steps(horizon: planDay("2027-06-01"), limit: 100)
        #expect(firstHalf.map(\.sequence) == Array(1...6))
        #expect(firstHalf.last?.date.iso == "2027-06-01")
        #expect(monthly.steps(horizon: planDay("2027-06-01"), limit: 3).count == 3)
        #expect(monthly.steps(horizon: nil, limit: 50).count == 50)
    }

    @Test func stepsAfterASequenceContinueTheNumbering() throws {
        let monthly = try plan(.monthly, start: "2027-01-01", end: .never, day: 1, at: 9, 0, in: "UTC")
        let next = monthly.steps(after: 6, horizon: planDay("2027-12-31"), limit: 100)
        #expect(next.map(\.sequence) == Array(7...12))
        #expect(next.first?.date.iso == "2027-07-01")
        #expect(next.first?.dueAt == planInstant("2027-07-01T09:00:00Z"))
    }

    @Test func finitePlansIgnoreTheHorizonButNotTheLimit() throws {
        let monthly = try plan(.monthly, start: "2027-01-01", end: .count(24), day: 1, at: 9, 0, in: "UTC")
        #expect(monthly.steps(horizon: planDay("2027-03-01"), limit: 1000).count == 24)
        #expect(monthly.steps(horizon: nil, limit: 5).map(\.sequence) == Array(1...5))
        #expect(monthly.steps(horizon: nil, limit: 0).isEmpty)
        #expect(monthly.steps(after: 24, horizon: nil, limit: 5).isEmpty)
    }
}
