import Foundation
import Logging
import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// The benchmark seeder copies API-made schedules in SQL with no binding; the runner refuses such
/// rows (sends their steps to review) until `benchmark-seed-binder` binds them with the vault's
/// own keys, after which it charges them like the rows the vault wrote itself. On either engine.
@Suite struct BenchmarkSeedBinderTests {
    /// A sandbox vault with `templates` due schedules made through the domain, each copied once
    /// behind the vault's back (new ids, no binding), as `scripts/seed_due_steps.py` does.
    static func seededWithUnboundCopies(templates: Int) async throws -> DueStepsVault {
        let world = try await DueStepsVault(shares: [.init(pan: RunnerProcessTests.approving, steps: templates, amount: 1234)])
        let runtime = try await VaultRuntime.open(configuration: configuration(of: world), logger: quietLogger)
        defer { runtime.close() }
        do {
            let store = runtime.store
            let merchant = try #require(try await store.merchant(named: "acme"))
            for template in try await store.schedules(merchantID: merchant.id, status: nil, afterSequence: nil, limit: 100) {
                var copy = template
                copy.id = OpaqueToken.make(prefix: "sch_", randomBits: 100)
                copy.binding = nil
                let steps = try await store.steps(scheduleID: template.id).map { step in
                    var step = step
                    step.id = OpaqueToken.make(prefix: "stp_", randomBits: 100)
                    step.scheduleID = copy.id
                    step.binding = nil
                    return step
                }
                try await store.insertSchedule(
                    copy, steps: steps,
                    audit: AuditEntry(merchantID: merchant.id, actor: "test", action: "schedule.created", objectType: "schedule", objectID: copy.id))
            }
        }
        #expect(try await world.count("SELECT count(*) AS n FROM schedule_steps WHERE binding IS NULL") == templates)
        return world
    }

    static func configuration(of world: DueStepsVault) -> VaultConfiguration {
        var configuration = VaultConfiguration()
        configuration.database = world.vault.database
        configuration.keys.directory = world.vault.directory.file("keys")
        configuration.keys.masterKeyFromEnvironment = world.masterKey
        return configuration
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "benchmark-seed-binder-tests")
        logger.logLevel = .critical
        return logger
    }

    @Test func copiesBoundByTheBinderAreChargedLikeTheRowsTheVaultWrote() async throws {
        let world = try await Self.seededWithUnboundCopies(templates: 3)
        let report = try await BenchmarkSeedBinder.run(configuration: Self.configuration(of: world), merchant: "acme", logger: Self.quietLogger, batchSize: 2)
        #expect(report == .init(schedules: 3, steps: 3), "only the copies had no binding")
        let run = try await world.chargeRun(["--as-of", DueStepsVault.asOf, "--json"])
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        #expect(try await world.stepStatuses() == ["approved": 6])
        #expect(try await world.stepsNotChargedExactlyOnce() == 0)
        let again = try await BenchmarkSeedBinder.run(configuration: Self.configuration(of: world), merchant: "acme", logger: Self.quietLogger)
        #expect(again == .init(), "nothing is left unbound")
    }

    @Test func withoutTheBinderTheCopiesGoToReviewAndAreNotCharged() async throws {
        let world = try await Self.seededWithUnboundCopies(templates: 3)
        let run = try await world.chargeRun(["--as-of", DueStepsVault.asOf, "--json"])
        #expect(try await world.stepStatuses() == ["approved": 3, "needs_review": 3], "\(run.stderr.suffix(2000))")
        #expect(try await world.count("SELECT count(*) AS n FROM transactions") == 3, "nothing is sent for a refused copy")
    }

    @Test func anUnknownMerchantIsRefusedAndBindsNothing() async throws {
        let world = try await Self.seededWithUnboundCopies(templates: 1)
        await #expect(throws: MerchantError.self) {
            try await BenchmarkSeedBinder.run(configuration: Self.configuration(of: world), merchant: "nobody", logger: Self.quietLogger)
        }
        #expect(try await world.count("SELECT count(*) AS n FROM schedule_steps WHERE binding IS NULL") == 1)
    }
}
