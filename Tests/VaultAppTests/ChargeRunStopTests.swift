import Foundation
@testable import GatewayFakes
import Payments
import StorageTestSupport
@testable import Scheduler
import Testing
import Vault
import VaultSQLite
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// SIGTERM (systemd stop, `timeout`) ends `vault charge run` cleanly: it claims nothing more,
/// finishes the gateway call in flight and writes its outcome, prints its summary and exits 3
/// (some steps unsettled: run again); the steps it did not begin stay due and the next run
/// charges each of them once.
@Suite struct ChargeRunStopTests {
    /// Cards and confirmed `delayedOnce` schedules of the merchant, due 2030-03-01 09:00 UTC.
    static func seed(_ setup: NMIMerchantVault, steps: Int) async throws {
        let runtime = try await setup.runtime()
        defer { runtime.close() }
        let seededAt = Timestamp.parse("2030-01-01T00:00:00Z")!
        let schedules = ScheduleService(store: runtime.store, settings: ScheduleSettings(defaultTime: .midnight), keyring: runtime.keyring)
        for index in 0..<steps {
            let card = try await runtime.cards.register(
                SecureCardRegistration(
                    merchantReference: "card-\(index)", source: CardSource(method: "ocr", card: CardInput(number: "4111111111111111", expiryDate: "1230")),
                    verify: false),
                merchant: setup.merchant, actor: "test", now: seededAt)
            let plan = PlanTerms(type: "delayedOnce", startDate: "2030-03-01", hour: 9, minute: 0, timeZone: "UTC")
            let created = try await schedules.create(
                NewSchedule(secureCardReference: card.reference, amount: 1_000 + Int64(index), currency: "USD", plan: plan),
                merchant: setup.merchant, actor: "test", now: seededAt)
            _ = try await schedules.confirm(id: created.schedule.id, merchant: setup.merchant, actor: "test", now: seededAt)
        }
    }

    @Test func sigtermFinishesTheCallInFlightPrintsTheSummaryAndLeavesTheRestDue() async throws {
        let setup = try await NMIMerchantVault.start()
        let fake = setup.fake
        defer { Task { await fake.stop() } }
        try await Self.seed(setup, steps: 5)
        // One step per claim and one call at a time, so most steps are not begun when the signal comes.
        let config = setup.vault.directory.file("vault.yaml")
        try "runner:\n  batchSize: 1\n  inDoubtGraceSeconds: 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        fake.core.enqueue(.holdAfterProcessing)
        let arguments = ["charge", "run", "--config", config, "--as-of", "2030-03-02T00:00:00Z", "--concurrency", "1", "--json"]
        let process = try setup.vault.start(arguments, environment: setup.environment)
        defer {
            process.killAndReap()
        }
        // The first sale is at the gateway, its answer held: the run is mid-call.
        await fake.core.waitUntilHolding(1)
        kill(process.pid, SIGTERM)
        let noticed = await process.standardError.wait(until: Date().addingTimeInterval(30)) { $0.contains("SIGTERM: stopping the charge run") ? true : nil }
        #expect(noticed == true, "\(process.standardError.text)")
        fake.core.releaseHeldResponses()
        let status = await process.exited()
        #expect(status == ChargeRunExitCode.unsettled, "\(process.standardError.text.suffix(2000))")

        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            return Timestamp.parse(text) ?? .distantPast
        }
        let summary = try decoder.decode(ChargeRunSummary.self, from: Data(await process.standardOutput.readToEnd().utf8))
        #expect(summary.stoppedBy == "signal")
        #expect(!summary.settled)
        let approved = summary.outcomes[ChargeOutcome.approved.rawValue]?.count ?? 0
        #expect(approved >= 1, "the call in flight finished and its outcome was written")
        #expect(approved == summary.processed)
        #expect(fake.chargeCount == approved, "every sale sent has its outcome")
        let (open, notBegun) = try await setup.vault.withStore { store in
            (try await TestSQL(store).count("SELECT count(*) AS n FROM transactions WHERE status NOT IN ('approved')"),
             try await TestSQL(store).count("SELECT count(*) AS n FROM schedule_steps WHERE status = 'scheduled' AND attempts = 0"))
        }
        #expect(open == 0, "no attempt left pending or in doubt")
        #expect(notBegun == 5 - approved)
        #expect(notBegun >= 1)

        // The next run charges the rest, each once.
        let next = try await setup.vault.run(arguments.filter { $0 != "--json" }, environment: setup.environment)
        #expect(next.status == 0, "\(next.stderr.suffix(2000))")
        #expect(fake.chargeCount == 5)
    }

    @Test func maxDurationEndsTheRunWithItsSummaryAndExitCode() async throws {
        let setup = try await NMIMerchantVault.start()
        let fake = setup.fake
        defer { Task { await fake.stop() } }
        try await Self.seed(setup, steps: 5)
        let config = setup.vault.directory.file("vault.yaml")
        try "runner:\n  batchSize: 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        fake.core.enqueue(.holdAfterProcessing)
        let process = try setup.vault.start(
            ["charge", "run", "--config", config, "--as-of", "2030-03-02T00:00:00Z", "--concurrency", "1", "--max-duration", "1s"],
            environment: setup.environment)
        defer {
            process.killAndReap()
        }
        await fake.core.waitUntilHolding(1)
        // Held past the deadline: when the answer comes, the run sees its time is up.
        try await Task.sleep(for: .milliseconds(1_100))
        fake.core.releaseHeldResponses()
        let status = await process.exited()
        #expect(status == ChargeRunExitCode.unsettled, "\(process.standardError.text.suffix(2000))")
        let table = await process.standardOutput.readToEnd()
        #expect(table.contains("STOPPED EARLY (max_duration)"), "\(table)")
        // The call in flight and the attempts already written finish; the steps not begun do not.
        #expect(fake.chargeCount < 5)
    }

    @Test(arguments: ["0", "-5m", "soon", "2d"])
    func aMaxDurationThatIsNotAPositiveDurationIsAUsageError(_ value: String) async throws {
        let vault = VaultProcess()
        #expect(try await vault.run(["charge", "run", "--max-duration", value]).status == 2)
    }
}
