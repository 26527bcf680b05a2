import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
@testable import Vault
import VaultSQLite

/// A scheduled charge's transaction is bound by the runner that writes it, so it refunds like any
/// other; transaction rows an earlier build wrote (no binding) are bound once per merchant at
/// start-up, and after that an unbound row is refused; `vault audit verify` names an altered one.
/// On either engine.
@Suite struct TransactionBindingUpgradeTests {
    typealias Tampered = TamperedScheduleChargeTests

    /// Charges the night's steps and returns the charge of `schedule`'s step.
    static func charged(_ fixture: ChargingFixture, step: String, merchant: Merchant) async throws -> Transaction {
        _ = try await Tampered.runner(fixture).run(ChargeRunner.Options(asOf: Tampered.due))
        let page = try await fixture.store.transactions(merchantID: merchant.id, filter: TransactionFilter(), beforeSequence: nil, limit: 10)
        return try #require(page.first { $0.stepID == step })
    }

    /// The message of a follow-up refused because its original `id` was altered.
    static func refusal(of id: String, _ followUp: String) -> String {
        "The stored record of transaction \(id) failed its integrity check (it was altered in the database); "
            + "no \(followUp) was recorded or sent. Check it against the gateway's records."
    }

    static func service(_ fixture: ChargingFixture) -> TransactionService {
        TransactionService(store: fixture.store, cards: fixture.cards, gateways: MerchantGateways(registry: fixture.registry, merchants: fixture.merchants))
    }

    @Test func aScheduledChargeIsBoundByTheRunnerAndRefunds() async throws {
        let setup = try await Tampered.setup()
        let charge = try await Self.charged(setup.fixture, step: setup.tampered.steps[0].id, merchant: setup.merchant)
        #expect(await TransactionBinding(keyring: setup.fixture.keyring).isIntact(charge))
        let refund = try await Self.service(setup.fixture).refund(id: charge.id, amount: nil, merchant: setup.merchant, actor: "test")
        #expect(refund.status == .approved && refund.amount == 1500)
    }

    @Test func rowsOfAnEarlierBuildAreBoundOnceAtStartUpAndRefundThenAnUnboundRowIsRefused() async throws {
        let fixture = try await ChargingFixture()
        let merchant = try await ScheduleBindingUpgradeTests.merchantOfAnEarlierBuild(fixture)
        let view = try await ScheduleBindingUpgradeTests.unboundSchedule(fixture, merchant: merchant, reference: "legacy", amount: 1500)
        _ = try await ScheduleBinding(keyring: fixture.keyring).bindLegacyRows(in: fixture.store)
        let charge = try await Self.charged(fixture, step: view.steps[0].id, merchant: merchant)
        try await fixture.database.sql.run("UPDATE transactions SET binding = NULL WHERE id = \(charge.id)")
        let binder = TransactionBinding(keyring: fixture.keyring)

        let startUp = try await binder.bindLegacyRows(in: fixture.store)
        #expect(startUp.bound == 1 && startUp.refused.isEmpty)
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'transactions.bound'") == 1)
        #expect(try await fixture.count("SELECT count(*) AS n FROM transactions WHERE binding IS NULL") == 0)
        let partial = try await Self.service(fixture).refund(id: charge.id, amount: 500, merchant: merchant, actor: "test")
        #expect(partial.status == .approved)

        // Once bound, a row stripped of its binding (and re-priced) is never bound again, nor refunded.
        try await fixture.database.sql.run("UPDATE transactions SET binding = NULL, amount = 8000000 WHERE id = \(charge.id)")
        let again = try await binder.bindLegacyRows(in: fixture.store)
        #expect(again.bound == 0 && again.refused == [charge.id])
        await #expect(throws: TransactionError.notAllowed(code: "transaction_integrity_failed", message: Self.refusal(of: charge.id, "refund"))) {
            try await Self.service(fixture).refund(id: charge.id, amount: nil, merchant: merchant, actor: "test")
        }
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'transactions.bound'") == 1)
    }

    @Test func aMerchantCreatedByThisBuildHasNoTransactionsToBindAndItsUnboundRowsAreRefused() async throws {
        let setup = try await Tampered.setup()
        let charge = try await Self.charged(setup.fixture, step: setup.tampered.steps[0].id, merchant: setup.merchant)
        try await setup.fixture.database.sql.run("UPDATE transactions SET binding = NULL WHERE id = \(charge.id)")
        let startUp = try await TransactionBinding(keyring: setup.fixture.keyring).bindLegacyRows(in: setup.fixture.store)
        #expect(startUp.bound == 0 && startUp.refused == [charge.id])
        #expect(try await setup.fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'transactions.bound'") == 0)
    }

    @Test func auditVerifyNamesATransactionAlteredInSQL() async throws {
        let setup = try await Tampered.setup()
        let charge = try await Self.charged(setup.fixture, step: setup.tampered.steps[0].id, merchant: setup.merchant)
        let check = BoundRowCheck(store: setup.fixture.store, keyring: setup.fixture.keyring)
        let before = try await check.run()
        #expect(before.isIntact && before.checked["transactions"] == 2)
        try await setup.fixture.database.sql.run("UPDATE transactions SET amount = 8000000 WHERE id = \(charge.id)")
        let after = try await check.run()
        #expect(after.tampered == ["transactions": [charge.id]])
    }
}
