import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
@testable import Vault
import VaultSQLite

/// Schedule and step rows written by an earlier build (no binding) are bound once per merchant at
/// start-up and charged as before; after that, an unbound row is refused. A change through the API
/// re-binds what it changes, and refuses to re-bind a row altered in the database. On either engine.
@Suite struct ScheduleBindingUpgradeTests {
    typealias Tampered = TamperedScheduleChargeTests

    /// A merchant as an earlier build created it: a `merchant.created` event that says nothing of
    /// bound schedules.
    static func merchantOfAnEarlierBuild(_ fixture: ChargingFixture) async throws -> Merchant {
        let now = Date()
        let merchant = Merchant(
            id: OpaqueToken.make(prefix: "mer_", randomBits: 80), sequence: 0, name: "earlier", status: .active,
            gateway: GatewaySettings(name: "sandbox"), timeZone: "UTC", callbackURL: nil, verifyOnRegistration: false, createdAt: now, updatedAt: now)
        let keys = try fixture.keyring.newMerchantKeys(merchantID: merchant.id, now: now)
        let fingerprint = try keys.first { $0.purpose == .fingerprint }.map(fixture.keyring.unwrap)
        let apiKey = try await APIKeyBinding(keyring: fixture.keyring).issue(merchantID: merchant.id, role: .admin, now: now, fingerprintKey: fingerprint)
        _ = try await fixture.store.createMerchant(
            merchant, keys: keys, sealedGatewayCredentials: nil, apiKey: apiKey,
            audit: AuditEntry(merchantID: merchant.id, actor: "cli", action: "merchant.created", objectType: "merchant", objectID: merchant.id,
                              details: ["name": "earlier", "apiKey": apiKey.record.id, "role": "admin", "apiKeysBound": "true"]))
        guard let stored = try await fixture.store.merchant(id: merchant.id) else { throw CancellationError() }
        return stored
    }

    /// A confirmed once-off schedule of `amount` on a new card, its rows then stripped of their
    /// bindings as an earlier build wrote them.
    static func unboundSchedule(_ fixture: ChargingFixture, merchant: Merchant, reference: String, amount: Int64) async throws -> ScheduleView {
        let card = try await fixture.card(reference, pan: "4242424242424242", merchant: merchant, now: Tampered.registered)
        let view = try await fixture.schedule(
            card, amount: amount, currency: "USD", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant,
            now: Tampered.registered)
        try await fixture.database.sql.run("UPDATE schedules SET binding = NULL WHERE id = \(view.schedule.id)")
        try await fixture.database.sql.run("UPDATE schedule_steps SET binding = NULL WHERE schedule_id = \(view.schedule.id)")
        return view
    }

    @Test func rowsOfAnEarlierBuildAreBoundOnceAtStartUpAndChargedThenAnUnboundRowIsRefused() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await Self.merchantOfAnEarlierBuild(fixture)
        let legacy = try await Self.unboundSchedule(fixture, merchant: merchant, reference: "legacy", amount: 1500)
        let binder = ScheduleBinding(keyring: fixture.keyring)

        let startUp = try await binder.bindLegacyRows(in: fixture.store)
        #expect(startUp.bound == 1 && startUp.refused.isEmpty)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'schedules.bound'") == 1)
        #expect(try await fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE binding IS NULL") == 0)
        let chain = try await fixture.store.verifyAuditChain()
        if case .intact = chain {} else { Issue.record("the audit chain is \(chain)") }

        // Once bound, a row stripped of its binding (and re-priced) is never bound again.
        let forged = try await Self.unboundSchedule(fixture, merchant: merchant, reference: "forged", amount: 1500)
        try await fixture.database.sql.run("UPDATE schedule_steps SET amount = 999999 WHERE schedule_id = \(forged.schedule.id)")
        let again = try await binder.bindLegacyRows(in: fixture.store)
        #expect(again.bound == 0 && again.refused == [forged.schedule.id])

        let summary = try await Tampered.runner(fixture).run(ChargeRunner.Options(asOf: Tampered.due))
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(summary.integrityFailures == 1)
        #expect(try await fixture.sandbox.transactionCount == 1)
        #expect(try await fixture.count(
            "SELECT count(*) AS n FROM transactions WHERE step_id = \(legacy.steps[0].id) AND status = 'approved' AND amount = 1500") == 1)
    }

    @Test func aMerchantsRowsBoundInSeveralBatchesAreRecordedOnceAfterTheLastSoAStopHalfWayRefusesNone() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await Self.merchantOfAnEarlierBuild(fixture)
        for reference in ["one", "two", "three"] {
            _ = try await Self.unboundSchedule(fixture, merchant: merchant, reference: reference, amount: 1500)
        }
        let startUp = try await ScheduleBinding(keyring: fixture.keyring).bindLegacyRows(in: fixture.store, batchSize: 1)
        #expect(startUp.bound == 3 && startUp.refused.isEmpty)
        #expect(try await fixture.count(
            "SELECT count(*) AS n FROM audit_events WHERE action = 'schedules.bound' AND details LIKE '%\"schedules\":\"3\"%'") == 1)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'schedules.bound'") == 1)
        let summary = try await Tampered.runner(fixture).run(ChargeRunner.Options(asOf: Tampered.due))
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 3)
    }

    @Test func aMerchantCreatedByThisBuildHasNoRowsToBindAndItsUnboundRowsAreRefused() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchant("m", zone: "UTC")
        let forged = try await Self.unboundSchedule(fixture, merchant: merchant, reference: "forged", amount: 1500)
        let startUp = try await ScheduleBinding(keyring: fixture.keyring).bindLegacyRows(in: fixture.store)
        #expect(startUp.bound == 0 && startUp.refused == [forged.schedule.id])
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'schedules.bound'") == 0)
    }

    @Test func aChangeThroughTheAPIRebindsAndTheNewAmountIsCharged() async throws {
        let setup = try await Tampered.setup()
        let id = setup.tampered.schedule.id
        _ = try await setup.fixture.schedules.change(
            id: id, ScheduleChange(amount: 2500), merchant: setup.merchant, actor: "test", now: Tampered.registered)
        let summary = try await Tampered.runner(setup.fixture).run(ChargeRunner.Options(asOf: Tampered.due))
        #expect(summary.integrityFailures == 0)
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 2)
        #expect(try await setup.fixture.count("SELECT count(*) AS n FROM transactions WHERE schedule_id = \(id) AND amount = 2500") == 1)
    }

    @Test func aChangeThroughTheAPIToARowAlteredInSQLIsRefusedAndReBindsNothing() async throws {
        let setup = try await Tampered.setup()
        let id = setup.tampered.schedule.id
        try await setup.fixture.database.sql.run("UPDATE schedules SET secure_card_id = \(setup.otherCard.reference) WHERE id = \(id)")
        await #expect(throws: ScheduleError.integrityFailed(scheduleID: id)) {
            _ = try await setup.fixture.schedules.change(
                id: id, ScheduleChange(description: .set("renamed")), merchant: setup.merchant, actor: "test", now: Tampered.registered)
        }
        #expect(try await setup.fixture.count("SELECT count(*) AS n FROM schedules WHERE id = \(id) AND description IS NULL") == 1)

        // A step re-priced in SQL is not re-bound by an amount change either.
        try await setup.fixture.database.sql.run("UPDATE schedules SET secure_card_id = \(setup.tampered.schedule.secureCardReference) WHERE id = \(id)")
        try await setup.fixture.database.sql.run("UPDATE schedule_steps SET amount = 999999 WHERE schedule_id = \(id)")
        await #expect(throws: ScheduleError.integrityFailed(scheduleID: id)) {
            _ = try await setup.fixture.schedules.change(id: id, ScheduleChange(amount: 2500), merchant: setup.merchant, actor: "test", now: Tampered.registered)
        }
        try await Tampered.expectRefused(setup, reason: "step's stored schedule, amount")
    }
}
