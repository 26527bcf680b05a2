import Foundation
import Logging
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
@testable import Vault
import VaultSQLite

/// Receipts an earlier build queued (no binding) are bound once per merchant at start-up, so one
/// still pending is sent; after that, and for a merchant created by this build, a receipt without
/// a binding was stripped of it behind the vault's back and is never sent. On either engine.
@Suite struct ReceiptBindingUpgradeTests {
    struct World {
        let fixture: ChargingFixture
        let sendmail: FakeSendmail
        var setup: EmailReceiptSetup { EmailReceiptSetup(sendmailCommand: sendmail.command, from: "receipts@vault.example") }

        /// An approved one-off sale of `merchant` with a receipt address, its receipt queued.
        func sale(_ merchant: Merchant) async throws -> Transaction {
            let card = try await fixture.card("c-\(UUID().uuidString.prefix(6))", pan: "4242424242424242", merchant: merchant, now: Date())
            var order = try NewTransaction(type: "sale", amount: 1250, currency: "USD", secureCardReference: card.reference, merchant: merchant)
            order.receiptEmail = "ada.lovelace@example.org"
            let service = TransactionService(
                store: fixture.store, cards: fixture.cards, gateways: MerchantGateways(registry: fixture.registry, merchants: fixture.merchants),
                receipts: EmailReceipts(keyring: fixture.keyring, setup: setup))
            return try await service.create(order, merchant: merchant, actor: "test")
        }

        func deliver(at now: Date = Date().addingTimeInterval(1)) async throws -> ReceiptDeliveryReport {
            var quiet = ChargingFixture.quietLogger
            quiet.logLevel = .critical
            return try await ReceiptDeliverer(store: fixture.store, keyring: fixture.keyring, mailer: try setup.mailer(), logger: quiet)
                .deliverDue(now: now)
        }

        func bindAtStartUp() async throws -> (bound: Int, refused: [String]) {
            try await ReceiptBinding(keyring: fixture.keyring).bindLegacyRows(in: fixture.store, keyring: fixture.keyring)
        }
    }

    static func world() async throws -> World {
        World(fixture: try await ChargingFixture(), sendmail: try FakeSendmail())
    }

    @Test func aReceiptOfAnEarlierBuildIsBoundOnceAtStartUpAndSentThenAStrippedOneIsNeverSent() async throws {
        let world = try await Self.world()
        defer { world.sendmail.remove() }
        let merchant = try await ScheduleBindingUpgradeTests.merchantOfAnEarlierBuild(world.fixture)
        let sale = try await world.sale(merchant)
        #expect(sale.status == .approved)
        try await world.fixture.database.sql.run("UPDATE email_receipts SET binding = NULL")

        let startUp = try await world.bindAtStartUp()
        #expect(startUp.bound == 1 && startUp.refused.isEmpty)
        #expect(try await world.fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'email_receipts.bound'") == 1)
        #expect(try await world.deliver() == ReceiptDeliveryReport(sent: 1))
        #expect(try world.sendmail.messages().first?.contains("To: ada.lovelace@example.org") == true)

        // Once bound, a receipt stripped of its binding (and re-priced) is never bound again, nor sent.
        let second = try await world.sale(merchant)
        try await world.fixture.database.sql.run(
            "UPDATE email_receipts SET binding = NULL, body = replace(body, '12.50', '1250.00') WHERE transaction_id = \(second.id)")
        let again = try await world.bindAtStartUp()
        #expect(again.bound == 0 && again.refused.count == 1)
        #expect(try await world.deliver() == ReceiptDeliveryReport(failed: 1, altered: 1))
        #expect(try world.sendmail.messages().count == 1)
    }

    @Test func anUnboundReceiptOfAMerchantCreatedByThisBuildIsRefusedAtStartUpAndNeverSent() async throws {
        let world = try await Self.world()
        defer { world.sendmail.remove() }
        let merchant = try await world.fixture.merchant("this-build", zone: "UTC")
        _ = try await world.sale(merchant)
        try await world.fixture.database.sql.run("UPDATE email_receipts SET binding = NULL")
        let startUp = try await world.bindAtStartUp()
        #expect(startUp.bound == 0 && startUp.refused.count == 1)
        #expect(try await world.deliver() == ReceiptDeliveryReport(failed: 1, altered: 1))
        #expect(try world.sendmail.messages().isEmpty)
    }
}
