import Foundation
@testable import GatewayFakes
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite
@testable import VaultApp
@testable import VaultAppTestSupport

/// Off-boarding a merchant cancels its open schedules before its keys are destroyed: its cards
/// can no longer be read, so a schedule left open would be charged into `failed` every night.
@Suite struct OffboardingTests {
    @Test func offboardingCancelsTheMerchantsSchedulesAndTheNextRunChargesAndFailsNothing() async throws {
        let setup = try await NMIMerchantVault.start()
        let fake = setup.fake
        defer { Task { await fake.stop() } }
        try await ChargeRunStopTests.seed(setup, steps: 3)
        let name = setup.merchant.name

        let refused = try await setup.vault.run(["merchant", "offboard", name], environment: setup.environment)
        #expect(refused.status != 0, "not without --yes")
        let offboarded = try await setup.vault.run(["merchant", "offboard", name, "--yes"], environment: setup.environment)
        #expect(offboarded.status == 0, "\(offboarded.stderr.suffix(1000))")
        #expect(offboarded.stdout.contains("3 open schedules cancelled"))

        let (schedules, waiting, cancelledEvents) = try await setup.vault.withStore { store in
            let sql = TestSQL(store)
            return (
                try await sql.count("SELECT count(*) AS n FROM schedules WHERE status <> 'cancelled'"),
                try await sql.count("SELECT count(*) AS n FROM schedule_steps WHERE status <> 'cancelled'"),
                try await sql.count("SELECT count(*) AS n FROM audit_events WHERE action = 'schedule.cancelled'"))
        }
        #expect(schedules == 0 && waiting == 0)
        #expect(cancelledEvents == 3)

        let run = try await setup.vault.run(
            ["charge", "run", "--as-of", "2030-03-02T00:00:00Z", "--json"], environment: setup.environment)
        #expect(run.status == 0, "\(run.stderr.suffix(1000))")
        let summary = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect((summary?["due"] as? [String: Any])?["count"] as? Int == 0, "\(run.stdout)")
        let counts = (summary?["outcomes"] as? [String: [String: Any]] ?? [:]).values.compactMap { $0["count"] as? Int }
        #expect(!counts.isEmpty && counts.allSatisfy { $0 == 0 }, "nothing charged and nothing failed: \(run.stdout)")
        #expect(fake.receivedTypes.isEmpty, "nothing sent for an off-boarded merchant")
    }
}
