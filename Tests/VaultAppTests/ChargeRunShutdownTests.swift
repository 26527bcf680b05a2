import Foundation
@testable import GatewayFakes
import Payments
import Scheduler
import ServiceLifecycle
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A run started over HTTP, when `vault serve` is stopped gracefully, stops as `vault charge run`
/// does on SIGTERM: it claims nothing more, finishes the gateway call in flight and writes its
/// outcome, and is recorded with its summary (`stoppedBy: shutdown`); the rest stay due.
@Suite struct ChargeRunShutdownTests {
    @Test func gracefulShutdownStopsARunInFlightCleanlyAndRecordsItsSummary() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let fixture = try await APIFixture()
        let runtime = fixture.runtime
        let merchant = try await runtime.merchants.create(
            name: "nmi-shop", role: .admin,
            settings: .init(gateway: "nmi", gatewayURL: fake.baseURL, gatewayCredentials: ["security_key": FakeNMIServer.securityKey],
                            verifyOnRegistration: false),
            actor: "test"
        ).merchant
        let seededAt = Timestamp.parse("2030-01-01T00:00:00Z")!
        let schedules = ScheduleService(store: runtime.store, settings: ScheduleSettings(defaultTime: .midnight), keyring: runtime.keyring)
        for index in 0..<5 {
            let card = try await runtime.cards.register(
                SecureCardRegistration(
                    merchantReference: "card-\(index)", source: CardSource(method: "ocr", card: CardInput(number: "4111111111111111", expiryDate: "1230")),
                    verify: false),
                merchant: merchant, actor: "test", now: seededAt)
            let plan = PlanTerms(type: "delayedOnce", startDate: "2030-03-01", hour: 9, minute: 0, timeZone: "UTC")
            let created = try await schedules.create(
                NewSchedule(secureCardReference: card.reference, amount: 1_000 + Int64(index), currency: "USD", plan: plan),
                merchant: merchant, actor: "test", now: seededAt)
            _ = try await schedules.confirm(id: created.schedule.id, merchant: merchant, actor: "test", now: seededAt)
        }
        var options = runtime.chargeRunOptions(asOf: Timestamp.parse("2030-03-02T00:00:00Z")!)
        options.merchantID = merchant.id
        options.concurrency = 1
        options.batchSize = 1
        let record = ChargeRunRecord(
            id: "run_shutdown", merchantID: merchant.id, status: .running, asOf: options.asOf, dryRun: false, startedBy: "test", startedAt: Date())
        try await runtime.store.insertChargeRun(
            record, audit: AuditEntry(merchantID: merchant.id, actor: "test", action: "charge_run.started", objectType: "charge_run", objectID: record.id))

        fake.core.enqueue(.holdAfterProcessing)
        let service = ChargeRunService(queue: runtime.chargeRuns, store: runtime.store, logger: fixture.logger) { runtime.chargeRunner(logger: fixture.logger) }
        let group = ServiceGroup(configuration: .init(services: [service], logger: fixture.logger))
        let running = Task { try await group.run() }
        while !runtime.chargeRuns.isAccepting { try await Task.sleep(for: .milliseconds(10)) }
        #expect(runtime.chargeRuns.submit(ChargeRunJob(record: record, options: options, actor: "test")))
        // The first sale is at the gateway, its answer held.
        await fake.core.waitUntilHolding(1)
        await group.triggerGracefulShutdown()
        // The queue closes after the runs in flight were asked to stop (one shutdown, handlers first).
        while runtime.chargeRuns.isAccepting { try await Task.sleep(for: .milliseconds(10)) }
        fake.core.releaseHeldResponses()
        try await running.value

        let stored = try #require(try await runtime.store.chargeRun(id: record.id, merchantID: merchant.id))
        #expect(stored.status == .failed)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            Timestamp.parse(try decoder.singleValueContainer().decode(String.self)) ?? .distantPast
        }
        let summary = try decoder.decode(ChargeRunSummary.self, from: Data(try #require(stored.summary).utf8))
        #expect(summary.stoppedBy == "shutdown")
        let approved = summary.outcomes[ChargeOutcome.approved.rawValue]?.count ?? 0
        #expect(approved >= 1, "the call in flight finished and its outcome was written")
        #expect(approved == summary.processed)
        #expect(fake.chargeCount == approved)
        #expect(approved < 5, "steps not begun stay due")
    }
}
