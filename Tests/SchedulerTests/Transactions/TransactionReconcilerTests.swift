import Foundation
@testable import GatewayFakes
import Logging
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// The reconciler against NMI's fake, on the engine of the run: every one-off transaction whose
/// answer was lost (or whose process died) gets what the gateway proves, is never sent again, and
/// goes to review when the gateway cannot prove either way.
@Suite struct TransactionReconcilerTests {
    static let grace: TimeInterval = 120

    struct Setup {
        let fixture: ChargingFixture
        let fake: FakeNMIServer
        let merchant: Merchant
        let card: SecureCard
        let gateways: MerchantGateways

        var transactions: TransactionService {
            TransactionService(store: fixture.store, cards: fixture.cards, gateways: gateways)
        }

        func reconciler(store: (any VaultStorage)? = nil) -> TransactionReconciler {
            TransactionReconciler(
                store: store ?? fixture.store, gateways: gateways, merchants: store ?? fixture.store,
                policy: InDoubtPolicy(grace: TransactionReconcilerTests.grace), keyring: fixture.keyring, logger: TransactionReconcilerTests.silent)
        }

        /// A sale of `amount` on the card whose answer is lost the way `quirk` loses it.
        func saleInDoubt(_ amount: Int64, quirk: FakeQuirk) async throws -> Transaction {
            fake.core.enqueue(quirk)
            do {
                let sale = try await transactions.create(try Self.sale(amount, card: card, merchant: merchant), merchant: merchant, actor: "test")
                Issue.record("expected the sale to be in doubt, got \(sale.status)")
                return sale
            } catch TransactionError.gatewayFailed(let transaction) {
                #expect(transaction.status == .inDoubt)
                return transaction
            }
        }

        func transaction(_ id: String) async throws -> Transaction {
            try #require(try await fixture.store.transaction(merchantID: merchant.id, id: id))
        }

        static func sale(_ amount: Int64, card: SecureCard, merchant: Merchant) throws -> NewTransaction {
            try NewTransaction(type: "sale", amount: amount, currency: "USD", secureCardReference: card.reference, merchant: merchant)
        }

        /// Lookups the fake answered.
        var lookups: Int { fake.core.requests.filter { $0.path.contains("query") }.count }
    }

    static func setUp() async throws -> Setup {
        let fake = try await FakeNMIServer.start()
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchants.create(
            name: "m-nmi", role: .admin,
            settings: .init(gateway: "nmi", gatewayURL: fake.baseURL, gatewayCredentials: ["security_key": FakeNMIServer.securityKey],
                            timeZone: "UTC", callbackURL: "https://merchant.example/hooks", verifyOnRegistration: false),
            actor: "test").merchant
        let card = try await fixture.card("c", pan: "4111111111111111", merchant: merchant, now: Date())
        var quiet = Logger(label: "test.quiet")
        quiet.logLevel = .critical
        let gateways = MerchantGateways(registry: GatewayRegistry(sandbox: fixture.sandbox, logger: quiet), merchants: fixture.merchants)
        return Setup(fixture: fixture, fake: fake, merchant: merchant, card: card, gateways: gateways)
    }

    /// The reconciler warns about every transaction sent to review; the tests check that themselves.
    static var silent: Logger {
        var logger = Logger(label: "test.reconciler")
        logger.logLevel = .critical
        return logger
    }

    static var afterGrace: Date { Date().addingTimeInterval(grace + 1) }

    @Test func aSaleChargedWhoseAnswerWasLostIsSettledApprovedAndNeverSentAgain() async throws {
        let setup = try await Self.setUp()
        defer { Task { await setup.fake.stop() } }
        let sale = try await setup.saleInDoubt(1234, quirk: .garbageAfterProcessing)

        let early = try await setup.reconciler().reconcile(now: Date().addingTimeInterval(Self.grace / 2))
        #expect(early.total == 0, "inside the grace period nothing is looked up")
        let summary = try await setup.reconciler().reconcile(now: Self.afterGrace)
        #expect(summary.settled == 1)

        let settled = try await setup.transaction(sale.id)
        let charged = try #require(setup.fake.transactions(orderID: sale.orderReference).first)
        #expect(settled.status == .approved)
        #expect(settled.gatewayTransactionID == charged.transactionID)
        #expect(setup.fake.receivedTypes == ["sale"], "never sent again")
        #expect(try await setup.fixture.count(
            "SELECT count(*) AS n FROM webhook_events WHERE type = 'transaction.approved' AND payload LIKE '%' || \(sale.id) || '%'") == 1)
        #expect(try await setup.fixture.count(
            "SELECT count(*) AS n FROM audit_events WHERE action = 'transaction.reconciled' AND object_id = \(sale.id)") == 1)
        let again = try await setup.reconciler().reconcile(now: Self.afterGrace.addingTimeInterval(3600))
        #expect(again.total == 0, "a settled transaction is not looked up again")
    }

    @Test func aSaleTheGatewayNeverReceivedIsRecordedNotChargedAndNeverSentAgain() async throws {
        let setup = try await Self.setUp()
        defer { Task { await setup.fake.stop() } }
        let sale = try await setup.saleInDoubt(1500, quirk: .garbage)
        let summary = try await setup.reconciler().reconcile(now: Self.afterGrace)
        #expect(summary.notCharged == 1)
        let settled = try await setup.transaction(sale.id)
        #expect(settled.status == .error && settled.errorCode == "not_charged")
        #expect(setup.fake.transactions(orderID: sale.orderReference).isEmpty)
        #expect(setup.fake.receivedTypes == ["sale"], "absence proven: recorded as not charged, never sent again")
    }

    @Test func aSaleTheGatewayCannotProveGoesToReviewAndAnOperatorResolvesIt() async throws {
        let setup = try await Self.setUp()
        defer { Task { await setup.fake.stop() } }
        let sale = try await setup.saleInDoubt(2500, quirk: .garbageAfterProcessing)
        setup.fake.core.enqueue(.status(503), for: .lookup)
        let summary = try await setup.reconciler().reconcile(now: Self.afterGrace)
        #expect(summary.needsReview == 1)
        let inReview = try await setup.transaction(sale.id)
        #expect(inReview.status == .needsReview)
        #expect(try await setup.fixture.count(
            "SELECT count(*) AS n FROM webhook_events WHERE type = 'transaction.needs_review' AND payload LIKE '%' || \(sale.orderReference) || '%'") == 1)
        let counts = try await setup.fixture.store.unsettledTransactionCounts(merchantID: setup.merchant.id, pendingBefore: Date())
        #expect(counts == UnsettledTransactionCounts(inDoubt: 0, needsReview: 1))
        let later = try await setup.reconciler().reconcile(now: Self.afterGrace.addingTimeInterval(86_400))
        #expect(later.total == 0, "a transaction in review waits for a person")
        #expect(setup.fake.receivedTypes == ["sale"])

        let reviews = TransactionReviewService(store: setup.fixture.store, keyring: setup.fixture.keyring)
        let charged = try #require(setup.fake.transactions(orderID: sale.orderReference).first)
        let resolved = try await reviews.resolve(id: sale.id, .charged(gatewayTransactionID: charged.transactionID), merchant: setup.merchant, actor: "operator")
        #expect(resolved.status == .approved && resolved.gatewayTransactionID == charged.transactionID)
        #expect(try await setup.transaction(sale.id).status == .approved)
        await #expect(throws: TransactionError.self) {
            _ = try await reviews.resolve(id: sale.id, .notCharged, merchant: setup.merchant, actor: "operator")
        }
        #expect(try await setup.transaction(sale.id).status == .approved, "a second resolution changes nothing")
    }

    @Test func aSaleInDoubtAlteredInSQLIsNotLookedUpGoesToReviewAndCannotBeResolved() async throws {
        let setup = try await Self.setUp()
        defer { Task { await setup.fake.stop() } }
        let sale = try await setup.saleInDoubt(1234, quirk: .garbageAfterProcessing)
        try await setup.fixture.database.sql.run("UPDATE transactions SET amount = 8000000 WHERE id = \(sale.id)")
        let summary = try await setup.reconciler().reconcile(now: Self.afterGrace)
        #expect(summary.needsReview == 1)
        #expect(setup.lookups == 0, "nothing asked of the gateway for an altered row")
        let inReview = try await setup.transaction(sale.id)
        #expect(inReview.status == .needsReview && inReview.errorCode == TransactionReconciler.integrityFailedCode)
        #expect(try await setup.fixture.count(
            "SELECT count(*) AS n FROM audit_events WHERE action = 'transaction.integrity_failed' AND object_id = \(sale.id)") == 1)

        let reviews = TransactionReviewService(store: setup.fixture.store, keyring: setup.fixture.keyring)
        let charged = try #require(setup.fake.transactions(orderID: sale.orderReference).first)
        do {
            _ = try await reviews.resolve(id: sale.id, .charged(gatewayTransactionID: charged.transactionID), merchant: setup.merchant, actor: "operator")
            Issue.record("an altered row was resolved")
        } catch TransactionError.notAllowed(let code, _) {
            #expect(code == "transaction_integrity_failed")
        }
        #expect(try await setup.transaction(sale.id).status == .needsReview, "the refusal changes nothing")
    }

    @Test func aRefundInDoubtHoldsItsAmountAndIsSettledAgainstItsOriginalOnce() async throws {
        let setup = try await Self.setUp()
        defer { Task { await setup.fake.stop() } }
        let sale = try await setup.transactions.create(try Setup.sale(3000, card: setup.card, merchant: setup.merchant), merchant: setup.merchant, actor: "test")
        setup.fake.settleAll()
        setup.fake.core.enqueue(.garbageAfterProcessing)
        let refund: Transaction
        do {
            refund = try await setup.transactions.refund(id: sale.id, amount: 2000, merchant: setup.merchant, actor: "test")
            Issue.record("expected the refund to be in doubt")
        } catch TransactionError.gatewayFailed(let transaction) {
            refund = transaction
        }
        #expect(refund.status == .inDoubt)
        // The refund may have happened: its amount stays held, so 1,500 more cannot pass.
        await #expect(throws: TransactionError.self) {
            _ = try await setup.transactions.refund(id: sale.id, amount: 1500, merchant: setup.merchant, actor: "test")
        }
        let summary = try await setup.reconciler().reconcile(now: Self.afterGrace)
        #expect(summary.settled == 1)
        #expect(try await setup.transaction(refund.id).status == .approved)
        let original = try await setup.transaction(sale.id)
        #expect(original.refundedAmount == 2000 && original.status == .partiallyRefunded)
        _ = try await setup.reconciler().reconcile(now: Self.afterGrace.addingTimeInterval(3600))
        #expect(try await setup.transaction(sale.id).refundedAmount == 2000, "applied to the original once")
    }

    @Test func aTransactionLeftPendingByADeadProcessIsSettledOnlyAfterItsRequestCannotBeRunning() async throws {
        let setup = try await Self.setUp()
        defer { Task { await setup.fake.stop() } }
        // A sale recorded and sent, whose process died before writing the answer.
        let now = Date()
        var pending = Transaction(id: Transaction.makeID(at: now), merchantID: setup.merchant.id, type: .sale, amount: 4200,
                                  currency: try Currency(code: "USD"), gateway: "nmi", now: now)
        pending.secureCardReference = setup.card.reference
        pending = try await TransactionBinding(keyring: setup.fixture.keyring).bound(pending)
        try await setup.fixture.store.insertTransaction(
            pending, audit: AuditEntry(merchantID: setup.merchant.id, actor: "test", action: "transaction.created", objectType: "transaction", objectID: pending.id))
        let adapter = try await setup.gateways.adapter(for: setup.merchant)
        let card = try await setup.fixture.cards.cardForCharge(reference: setup.card.reference, merchantID: setup.merchant.id)
        let sent = await adapter.sale(ChargeRequest(
            idempotencyKey: pending.idempotencyKey, reference: pending.orderReference, amount: Money(minorUnits: 4200, currency: pending.currency),
            card: PaymentCard(pan: card.pan, expiry: card.expiry, holderName: nil, cvv: nil, postalCode: nil), description: nil, storedCredential: nil))
        #expect(sent.isApproved)

        let whileRunning = try await setup.reconciler().reconcile(now: now.addingTimeInterval(Self.grace + 1))
        #expect(whileRunning.total == 0, "its request may still be running")
        let summary = try await setup.reconciler().reconcile(now: now.addingTimeInterval(Self.grace + TransactionReconciler.requestBound + 1))
        #expect(summary.settled == 1)
        let settled = try await setup.transaction(pending.id)
        #expect(settled.status == .approved && settled.gatewayTransactionID == sent.transactionID)
    }

    @Test func twoReconcilersAtOnceLookEachTransactionUpOnce() async throws {
        let setup = try await Self.setUp()
        defer { Task { await setup.fake.stop() } }
        var ids: [String] = []
        for amount in 1...6 { ids.append(try await setup.saleInDoubt(Int64(1000 + amount), quirk: .garbageAfterProcessing).id) }
        // A second server: its own store and keyring over the same database.
        let other = try await setup.fixture.database.openAnother()
        defer { TestDatabase.close(other) }
        try await Keyring(masterKeys: setup.fixture.ring, store: other).verifyMasterKey()
        let before = setup.lookups
        let now = Self.afterGrace
        async let first = setup.reconciler().reconcile(now: now)
        async let second = setup.reconciler(store: other).reconcile(now: now)
        let (a, b) = try await (first, second)
        #expect(a.settled + b.settled == 6)
        #expect(setup.lookups - before == 6, "each transaction looked up by one reconciler")
        for id in ids { #expect(try await setup.transaction(id).status == .approved) }
    }

    @Test func aSettlementIsWrittenOnlyWhileTheTransactionIsStillWhatWasRead() async throws {
        let setup = try await Self.setUp()
        defer { Task { await setup.fake.stop() } }
        let sale = try await setup.saleInDoubt(990, quirk: .garbageAfterProcessing)
        var late = sale
        late.apply(GatewayResult(outcome: .approved, transactionID: "late"), now: Date())
        try await setup.fixture.store.completeTransaction(
            late, parentUpdate: nil, audit: AuditEntry(merchantID: setup.merchant.id, actor: "test", action: "late", objectType: "transaction", objectID: sale.id),
            notices: .none)
        var reconciled = sale
        reconciled.apply(.error("not_charged", retryable: false), now: Date())
        let written = try await setup.fixture.store.settleTransaction(
            reconciled, expecting: .inDoubt, parentUpdate: nil,
            audit: AuditEntry(merchantID: setup.merchant.id, actor: "test", action: "x", objectType: "transaction", objectID: sale.id), notices: .none)
        #expect(!written)
        #expect(try await setup.transaction(sale.id).gatewayTransactionID == "late")
    }

    @Test func aVerificationAuthorizationFoundApprovedIsVoided() async throws {
        let fake = try await FakeAuthorizeNetServer.start()
        defer { Task { await fake.stop() } }
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchants.create(
            name: "m-anet", role: .admin,
            settings: .init(gateway: "authorizenet", gatewayURL: fake.url, gatewayCredentials: [
                "name": FakeAuthorizeNetServer.apiLoginID, "transactionKey": FakeAuthorizeNetServer.transactionKey,
            ], timeZone: "UTC", verifyOnRegistration: false),
            actor: "test").merchant
        let card = try await fixture.card("v", pan: "4111111111111111", merchant: merchant, now: Date())
        var quiet = Logger(label: "test.quiet")
        quiet.logLevel = .critical
        let gateways = MerchantGateways(registry: GatewayRegistry(sandbox: fixture.sandbox, logger: quiet), merchants: fixture.merchants)
        let setup = Setup(fixture: fixture, fake: try await FakeNMIServer.start(), merchant: merchant, card: card, gateways: gateways)
        defer { Task { await setup.fake.stop() } }
        fake.core.enqueue(.garbageAfterProcessing)
        let request = try NewTransaction(type: "verify", amount: 0, currency: "USD", secureCardReference: card.reference, merchant: merchant)
        do {
            _ = try await setup.transactions.create(request, merchant: merchant, actor: "test")
            Issue.record("expected the verification to be in doubt")
        } catch TransactionError.gatewayFailed(let transaction) {
            #expect(transaction.status == .inDoubt)
        }
        #expect(fake.receivedTransactionTypes == ["authOnlyTransaction"], "the verification's answer was lost before its void")
        let summary = try await setup.reconciler().reconcile(now: Self.afterGrace)
        #expect(summary.settled == 1)
        #expect(fake.receivedTransactionTypes == ["authOnlyTransaction", "voidTransaction"], "the hold on the card is released")
    }
}
