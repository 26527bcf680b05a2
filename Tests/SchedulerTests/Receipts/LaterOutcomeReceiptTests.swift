import Foundation
@testable import GatewayFakes
import Logging
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// Outcomes settled after the request that asked for a receipt get the receipt an immediate
/// approval would: a sale in doubt the reconciler finds approved, a one-off transaction and a
/// schedule's step an operator resolves as charged. The receipt is queued in the outcome's own
/// write, to the address the transaction (or the schedule) keeps; an outcome found not charged
/// queues none.
@Suite struct LaterOutcomeReceiptTests {
    static let address = "ada.lovelace@example.org"

    struct Setup {
        let base: TransactionReconcilerTests.Setup
        let sendmail: FakeSendmail

        var receiptSetup: EmailReceiptSetup { EmailReceiptSetup(sendmailCommand: sendmail.command, from: "receipts@vault.example") }
        var receipts: EmailReceipts { EmailReceipts(keyring: base.fixture.keyring, setup: receiptSetup) }
        var transactions: TransactionService {
            TransactionService(store: base.fixture.store, cards: base.fixture.cards, gateways: base.gateways, receipts: receipts)
        }

        func reconciler() -> TransactionReconciler {
            TransactionReconciler(
                store: base.fixture.store, gateways: base.gateways, merchants: base.fixture.store,
                policy: InDoubtPolicy(grace: TransactionReconcilerTests.grace), keyring: base.fixture.keyring,
                logger: TransactionReconcilerTests.silent, receipts: receipts)
        }

        /// A sale with a receipt address whose answer is lost the way `quirk` loses it.
        func saleInDoubt(_ amount: Int64, quirk: FakeQuirk) async throws -> Transaction {
            base.fake.core.enqueue(quirk)
            var order = try TransactionReconcilerTests.Setup.sale(amount, card: base.card, merchant: base.merchant)
            order.receiptEmail = LaterOutcomeReceiptTests.address
            do {
                let sale = try await transactions.create(order, merchant: base.merchant, actor: "test")
                Issue.record("expected the sale to be in doubt, got \(sale.status)")
                return sale
            } catch TransactionError.gatewayFailed(let transaction) {
                #expect(transaction.status == .inDoubt)
                return transaction
            }
        }

        func queued() async throws -> [EmailReceipt] {
            try await base.fixture.store.receipts(merchantID: base.merchant.id, status: nil, beforeSequence: nil, limit: 100)
        }

        func deliver() async throws -> ReceiptDeliveryReport {
            try await ReceiptDeliverer(
                store: base.fixture.store, keyring: base.fixture.keyring, mailer: try receiptSetup.mailer(), logger: TransactionReconcilerTests.silent
            ).deliverDue(now: Date().addingTimeInterval(TransactionReconcilerTests.grace + 5))
        }
    }

    static func setUp() async throws -> Setup {
        Setup(base: try await TransactionReconcilerTests.setUp(), sendmail: try FakeSendmail())
    }

    @Test func aSaleInDoubtTheReconcilerFindsApprovedSendsItsReceiptToTheAddressItKept() async throws {
        let setup = try await Self.setUp()
        defer { setup.sendmail.remove() }
        defer { Task { await setup.base.fake.stop() } }
        let sale = try await setup.saleInDoubt(1234, quirk: .garbageAfterProcessing)
        #expect(try await setup.queued().isEmpty, "no receipt while the outcome is unknown")

        let summary = try await setup.reconciler().reconcile(now: TransactionReconcilerTests.afterGrace)
        #expect(summary.settled == 1)
        let receipt = try #require(try await setup.queued().first)
        #expect(receipt.transactionID == sale.id && receipt.event == .paid && receipt.maskedRecipient == "a***@example.org")
        #expect(try await setup.deliver().sent == 1)
        let message = try #require(try setup.sendmail.messages().first)
        #expect(message.contains("To: \(Self.address)") && message.contains("Paid: $12.34") && message.contains("Transaction: \(sale.id)"))
    }

    @Test func aSaleInDoubtTheGatewayNeverReceivedQueuesNoReceipt() async throws {
        let setup = try await Self.setUp()
        defer { setup.sendmail.remove() }
        defer { Task { await setup.base.fake.stop() } }
        _ = try await setup.saleInDoubt(1500, quirk: .garbage)
        #expect(try await setup.reconciler().reconcile(now: TransactionReconcilerTests.afterGrace).notCharged == 1)
        #expect(try await setup.queued().isEmpty)
    }

    @Test func aSaleAnOperatorResolvesAsChargedSendsItsReceiptAndOneResolvedNotChargedNone() async throws {
        let setup = try await Self.setUp()
        defer { setup.sendmail.remove() }
        defer { Task { await setup.base.fake.stop() } }
        let charged = try await setup.saleInDoubt(2500, quirk: .garbageAfterProcessing)
        setup.base.fake.core.enqueue(.status(503), for: .lookup)
        let notCharged = try await setup.saleInDoubt(700, quirk: .garbage)
        setup.base.fake.core.enqueue(.status(503), for: .lookup)
        #expect(try await setup.reconciler().reconcile(now: TransactionReconcilerTests.afterGrace).needsReview == 2)
        #expect(try await setup.queued().isEmpty)

        let reviews = TransactionReviewService(store: setup.base.fixture.store, keyring: setup.base.fixture.keyring, receipts: setup.receipts)
        let gatewayID = try #require(setup.base.fake.transactions(orderID: charged.orderReference).first).transactionID
        _ = try await reviews.resolve(id: charged.id, .charged(gatewayTransactionID: gatewayID), merchant: setup.base.merchant, actor: "operator")
        _ = try await reviews.resolve(id: notCharged.id, .notCharged, merchant: setup.base.merchant, actor: "operator")
        let queued = try await setup.queued()
        #expect(queued.map(\.transactionID) == [charged.id] && queued.first?.event == .paid)
        #expect(try await setup.deliver().sent == 1)
        #expect(try setup.sendmail.messages().first?.contains("Paid: $25.00") == true)
    }

    @Test func aStepAnOperatorResolvesAsChargedSendsTheReceiptItsScheduleAsksFor() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let sendmail = try FakeSendmail()
        defer { sendmail.remove() }
        let receiptSetup = EmailReceiptSetup(sendmailCommand: sendmail.command, from: "receipts@vault.example")
        let fixture = try await ChargingFixture(emailReceipts: receiptSetup)
        let now = LostAnswerLookupTests.now
        let merchant = try await fixture.merchants.create(
            name: "m-nmi", role: .admin,
            settings: .init(gateway: "nmi", gatewayURL: fake.baseURL, gatewayCredentials: ["security_key": FakeNMIServer.securityKey],
                            timeZone: "UTC", verifyOnRegistration: false),
            actor: "test").merchant
        let card = try await fixture.card("c", pan: "4111111111111111", merchant: merchant, now: now)
        let created = try await fixture.schedules.create(
            NewSchedule(
                secureCardReference: card.reference, amount: 1234, currency: "USD", receiptEmail: Self.address,
                plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02")),
            merchant: merchant, actor: "test", now: now)
        let confirmed = try await fixture.schedules.confirm(id: created.schedule.id, merchant: merchant, actor: "test", now: now)
        let step = try #require(confirmed.steps.first)
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.retryBackoff = .milliseconds(1)
        options.inDoubtGrace = 0
        // The answer is lost and no look-up can prove it: the step goes to review, with no receipt.
        fake.core.enqueue(.garbage)
        fake.core.enqueue(.status(503), for: .lookup)
        fake.core.enqueue(.status(500), for: .lookup)
        _ = try await fixture.runner().run(options)
        _ = try await fixture.runner().run(options)
        #expect(try await fixture.steps(created.schedule.id).first?.status == .needsReview)
        let receipts = { try await fixture.store.receipts(merchantID: merchant.id, status: nil, beforeSequence: nil, limit: 10) }
        #expect(try await receipts().isEmpty)

        let reviews = StepReviewService(
            store: fixture.store, policy: RetryPolicy(), keyring: fixture.keyring, contacts: ScheduleContactOpener(keyring: fixture.keyring))
        _ = try await reviews.resolve(
            scheduleID: created.schedule.id, stepID: step.id, .charged(gatewayTransactionID: "9100000042"), merchant: merchant, actor: "operator")
        let queued = try await receipts()
        #expect(queued.count == 1 && queued.first?.event == .paid)
        let delivered = try await ReceiptDeliverer(
            store: fixture.store, keyring: fixture.keyring, mailer: try receiptSetup.mailer(), logger: TransactionReconcilerTests.silent
        ).deliverDue(now: Date().addingTimeInterval(1))
        #expect(delivered.sent == 1)
        #expect(try sendmail.messages().first?.contains("To: \(Self.address)") == true)
    }
}
