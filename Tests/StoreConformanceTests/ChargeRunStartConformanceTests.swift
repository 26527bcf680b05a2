import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// Starting a merchant's charge run on the run's engine: while one of its runs is running, another
/// start records nothing and names that run, however many arrive at once on however many servers;
/// a finished run, a run of a process gone from this host, a run older than the stale bound and
/// another merchant's run do not block a start.
@Suite("Store conformance: one running charge run per merchant")
struct ChargeRunStartConformanceTests {
    static func record(_ id: String, merchantID: String?, owner: String? = RunnerIdentity.process, startedAt: Date = Date()) -> ChargeRunRecord {
        ChargeRunRecord(
            id: id, merchantID: merchantID, status: .running, asOf: startedAt, dryRun: false, startedBy: "apikey:k", startedAt: startedAt,
            owner: owner)
    }

    static func start(_ store: any VaultStorage, _ run: ChargeRunRecord, now: Date = Date()) async throws -> ChargeRunRecord? {
        try await store.insertChargeRun(
            run, audit: AuditEntry(merchantID: run.merchantID, actor: "apikey:k", action: "charge_run.started", objectType: "charge_run", objectID: run.id),
            unlessRunningSince: now.addingTimeInterval(-3600))
    }

    @Test func ofManyStartsOfOneMerchantOnTwoServersAtOnceOneIsRecordedAndTheOthersNameIt() async throws {
        let fixture = try await StoreFixture()
        let merchantID = fixture.merchantID
        let answers = try await fixture.withAnotherStore { second in
            try await withThrowingTaskGroup(of: (String, ChargeRunRecord?).self) { group in
                for index in 0..<16 {
                    let store = index % 2 == 0 ? fixture.store : second
                    group.addTask { ("run_\(index)", try await Self.start(store, Self.record("run_\(index)", merchantID: merchantID))) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let recorded = answers.filter { $0.1 == nil }.map(\.0)
        #expect(recorded.count == 1)
        #expect(answers.compactMap { $0.1?.id }.allSatisfy { $0 == recorded.first }, "every refused start names the running run")
        #expect(try await fixture.count("SELECT count(*) AS n FROM charge_runs") == 1)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'charge_run.started'") == 1)
    }

    @Test func onlyARunningLiveRecentRunOfTheSameMerchantBlocksAStart() async throws {
        let fixture = try await StoreFixture()
        let merchantID = fixture.merchantID
        let (other, _) = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(), actor: "test")
        let now = Date()
        #expect(try await Self.start(fixture.store, Self.record("run_a", merchantID: merchantID)) == nil)
        #expect(try await Self.start(fixture.store, Self.record("run_b", merchantID: merchantID))?.id == "run_a")
        #expect(try await Self.start(fixture.store, Self.record("run_other", merchantID: other.id)) == nil, "another merchant's run does not block")

        var finished = try #require(try await fixture.store.chargeRun(id: "run_a", merchantID: merchantID))
        finished.status = .completed
        finished.finishedAt = now
        try await fixture.store.updateChargeRun(finished)
        #expect(try await Self.start(fixture.store, Self.record("run_c", merchantID: merchantID)) == nil, "a finished run does not block")

        // run_c is running; a process of this host that no longer exists cannot be running anything.
        _ = try await fixture.sql.run(
            "UPDATE charge_runs SET owner = \(ProcessInfo.processInfo.hostName + ":2147483647:x") WHERE id = 'run_c'")
        #expect(try await Self.start(fixture.store, Self.record("run_d", merchantID: merchantID)) == nil, "a dead process's run does not block")
        #expect(try await fixture.store.chargeRun(id: "run_c", merchantID: nil)?.status == .failed)

        // run_d is running, started long ago by a server on another host: past the stale bound it no longer blocks.
        _ = try await fixture.sql.run(
            "UPDATE charge_runs SET owner = 'another-host:1:x', started_at = \(Timestamp.string(now.addingTimeInterval(-7200))) WHERE id = 'run_d'")
        #expect(try await Self.start(fixture.store, Self.record("run_e", merchantID: merchantID), now: now) == nil)
        #expect(try await Self.start(fixture.store, Self.record("run_f", merchantID: merchantID), now: now)?.id == "run_e")
    }
}
