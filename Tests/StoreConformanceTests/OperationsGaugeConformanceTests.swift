import Foundation
import Payments
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `OperationsGaugeStore`, what the on-call gauges read, on the run's engine: the webhook backlog
/// counts only pending events and dates the oldest, steps in doubt count each step once, and the
/// last finished charge run is the one that finished last, never a running run or a dry run.
@Suite("Store conformance: operations gauges")
struct OperationsGaugeConformanceTests {
    @Test func theBacklogCountsPendingEventsOnlyAndDatesTheOldest() async throws {
        let fixture = try await StoreFixture(callbackURL: WebhookOutboxConformanceTests.callback)
        let queued = try await fixture.store.webhookEvents(merchantID: fixture.merchantID, status: .pending, beforeSequence: nil, limit: 10)
        #expect(queued.count == 1)  // the fixture's card
        let first = try await fixture.store.webhookBacklog()
        #expect(first.pending == 1)
        #expect(first.oldestQueuedAt == queued.first?.createdAt)
        try await fixture.store.markWebhookDelivered(id: try #require(queued.first?.id), at: Date())
        #expect(try await fixture.store.webhookBacklog() == WebhookBacklog(pending: 0, oldestQueuedAt: nil))
    }

    @Test func stepsInDoubtCountEachStepOnceAndOnlyInDoubtAttempts() async throws {
        let fixture = try await StoreFixture()
        let steps = try await fixture.schedules(3, stepsEach: 1, due: Date().addingTimeInterval(-60))
        #expect(try await fixture.store.stepsInDoubt() == 0)
        for (index, step) in steps.enumerated() {
            for attempt in 1...2 {
                try await fixture.transaction(status: index == 2 ? .approved : .inDoubt) { transaction in
                    transaction.stepID = step.id
                    transaction.scheduleID = step.scheduleID
                    transaction.attempt = attempt
                }
            }
        }
        try await fixture.transaction(status: .inDoubt)  // a one-off: not a step
        #expect(try await fixture.store.stepsInDoubt() == 2)
    }

    @Test func theLastFinishedRunIsTheLatestCompletedOrFailedRunThatCharged() async throws {
        let fixture = try await StoreFixture()
        #expect(try await fixture.store.lastFinishedChargeRun() == nil)
        let base = Date(timeIntervalSince1970: 1_900_000_000)
        func run(_ id: String, status: ChargeRunStatus, dryRun: Bool = false, finished: Date?) async throws {
            var record = ChargeRunStartConformanceTests.record(id, merchantID: nil, startedAt: base)
            record.dryRun = dryRun
            try await fixture.store.insertChargeRun(
                record, audit: AuditEntry(merchantID: nil, actor: "test", action: "charge_run.started", objectType: "charge_run", objectID: id))
            record.status = status
            record.finishedAt = finished
            if status != .running { try await fixture.store.updateChargeRun(record) }
        }
        try await run("run_old", status: .completed, finished: base.addingTimeInterval(10))
        try await run("run_failed", status: .failed, finished: base.addingTimeInterval(20))
        try await run("run_dry", status: .completed, dryRun: true, finished: base.addingTimeInterval(30))
        try await run("run_open", status: .running, finished: nil)
        let last = try #require(try await fixture.store.lastFinishedChargeRun())
        #expect(last.id == "run_failed" && last.status == .failed)
        try await run("run_new", status: .completed, finished: base.addingTimeInterval(40))
        #expect(try await fixture.store.lastFinishedChargeRun()?.id == "run_new")
    }
}
