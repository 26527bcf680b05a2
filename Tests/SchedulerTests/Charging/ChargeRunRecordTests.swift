import Foundation
import Testing
import Vault
@testable import Scheduler
import VaultSQLite

/// A run whose process was killed must not stay `running` for ever.
@Suite struct ChargeRunRecordTests {
    /// The identity a process that has exited had.
    /// (Spawned directly: Foundation's `Process.run()` on Linux crashes now and then, see
    /// swift-corelibs-foundation PR #5472.)
    static func ownerOfAnExitedProcess() throws -> String {
        var pid: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { arguments.forEach { free($0) } }
        let code = posix_spawn(&pid, "/bin/true", nil, nil, arguments, environ)
        guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EINVAL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return "\(ProcessInfo.processInfo.hostName):\(pid):x"
    }

    static func record(_ id: String, owner: String?) -> ChargeRunRecord {
        ChargeRunRecord(id: id, merchantID: nil, status: .running, asOf: Date(), dryRun: false, startedBy: "cli", startedAt: Date(), owner: owner)
    }

    @Test func aRunWhoseProcessIsGoneReadsAsFailedAndIsRecordedSoByTheNextRun() async throws {
        let fixture = try await ChargingFixture()
        let dead = try Self.ownerOfAnExitedProcess()
        let audit = AuditEntry(merchantID: nil, actor: "cli", action: "charge_run.started", objectType: "charge_run", objectID: "run_dead")
        try await fixture.store.insertChargeRun(Self.record("run_dead", owner: dead), audit: audit)
        try await fixture.store.insertChargeRun(Self.record("run_alive", owner: RunnerIdentity.process), audit: audit)
        let shownDead = try await fixture.store.chargeRun(id: "run_dead", merchantID: nil)
        #expect(shownDead?.status == .failed)
        let stored = try await fixture.count("SELECT count(*) AS n FROM charge_runs WHERE id = 'run_dead' AND status = 'failed' AND finished_at IS NOT NULL")
        #expect(stored == 1, "the second run's start recorded the dead one as failed")
        let alive = try await fixture.store.chargeRun(id: "run_alive", merchantID: nil)
        #expect(alive?.status == .running)
    }

    @Test func runsOfThisProcessOrOfUnknownOwnersStayRunning() async throws {
        let fixture = try await ChargingFixture()
        let audit = AuditEntry(merchantID: nil, actor: "cli", action: "charge_run.started", objectType: "charge_run", objectID: "run_a")
        try await fixture.store.insertChargeRun(Self.record("run_a", owner: RunnerIdentity.process), audit: audit)
        try await fixture.store.insertChargeRun(Self.record("run_b", owner: "another-host:1:x"), audit: audit)
        try await fixture.store.insertChargeRun(Self.record("run_c", owner: nil), audit: audit)
        let running = try await fixture.count("SELECT count(*) AS n FROM charge_runs WHERE status = 'running'")
        #expect(running == 3)
    }
}
