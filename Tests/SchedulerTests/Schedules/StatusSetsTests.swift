import Scheduler
import Testing
import Vault

/// The status lists the rules speak of, and their SQL literal forms the engines write into
/// statements whose text must stay constant.
@Suite struct StatusSetsTests {
    @Test func aRunChargesTheStepsOfActiveAndPastDueSchedulesAndExtendsPausedOnesToo() {
        #expect(ScheduleStatus.charging == [.active, .pastDue])
        #expect(ScheduleStatus.extendable == [.active, .paused, .pastDue])
        #expect(StepStatus.chargedByRuns == [.scheduled, .retryPending, .processing])
        #expect(Set(StepStatus.chargedByRuns).isDisjoint(with: StepStatus.settled), "a settled step is never charged again")
        #expect(Set(StepStatus.open).isDisjoint(with: StepStatus.settled))
        #expect(Set(StepStatus.open).union(StepStatus.settled) == Set(StepStatus.allCases))
    }

    @Test func statusNamesBecomeSQLStringLiteralsFromTheirRawValues() {
        #expect(StepStatus.retryPending.sqlLiteral == "'retry_pending'")
        #expect(ScheduleStatus.charging.sqlLiterals == "'active', 'past_due'")
        #expect(ScheduleStatus.extendable.sqlLiterals == "'active', 'paused', 'past_due'")
        // Every status name is a plain identifier: nothing in one can end its literal.
        for name in StepStatus.allCases.map(\.rawValue) + ScheduleStatus.allCases.map(\.rawValue) {
            #expect(name.allSatisfy { $0.isLetter || $0 == "_" }, "\(name)")
        }
    }
}
