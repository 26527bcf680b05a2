import Foundation
@testable import GatewayFakes
import Logging
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// Through the charge runner against the gateways' fakes: scheduled
/// charges are merchant-initiated recurring charges referring to the card's first use; a card
/// the gateway cannot take is declined locally and never sent; a currency it cannot express is
/// refused when the schedule is created.
@Suite struct StoredCredentialChargeTests {
    static let now = Timestamp.parse("2027-03-01T00:00:00Z")!

    struct Setup {
        let fixture: ChargingFixture
        let merchant: Merchant
        let credentials: StoredCredentials
    }

    static func setUp(gateway: String, url: String, credentials: [String: String]) async throws -> Setup {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchants.create(
            name: "m", role: .admin,
            settings: .init(gateway: gateway, gatewayURL: url, gatewayCredentials: credentials, timeZone: "UTC", verifyOnRegistration: false),
            actor: "test").merchant
        return Setup(fixture: fixture, merchant: merchant, credentials: StoredCredentials(store: fixture.store, keyring: fixture.keyring))
    }

    static func runner(_ setup: Setup) -> ChargeRunner {
        ChargeRunner(
            store: setup.fixture.store, cards: setup.fixture.cards,
            gateways: MerchantGateways(registry: setup.fixture.registry, merchants: setup.fixture.merchants), merchants: setup.fixture.store,
            policy: RetryPolicy(), logger: ChargingFixture.quietLogger, storedCredentials: setup.credentials)
    }

    /// Two monthly steps (2027-03-02, 2027-04-02) of 20.00 USD.
    static func twoSteps(_ setup: Setup, card: SecureCard) async throws -> ScheduleView {
        try await setup.fixture.schedule(
            card, amount: 2_000, currency: "USD", plan: PlanTerms(type: "arbitraryDates", dates: ["2027-03-02", "2027-04-02"]),
            merchant: setup.merchant, now: now)
    }

    static func run(_ setup: Setup, through day: String) async throws {
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay(day))
        options.retryBackoff = .milliseconds(1)
        _ = try await runner(setup).run(options)
    }

    @Test func authorizeNetRecurringChargesReferToTheVerificationsNetworkTransactionID() async throws {
        let fake = try await FakeAuthorizeNetServer.start()
        defer { Task { await fake.stop() } }
        let setup = try await Self.setUp(gateway: "authorizenet", url: fake.url, credentials: [
            "name": FakeAuthorizeNetServer.apiLoginID, "transactionKey": FakeAuthorizeNetServer.transactionKey])
        let card = try await setup.fixture.card("c", pan: "4111111111111111", merchant: setup.merchant, now: Self.now)
        // The card's first use (what a registration with verification does), kept as the vault keeps it.
        var first = GatewayFixtures.charge("reg", reference: "REG-1")
        first.storedCredential = .initial
        let gateway = AuthorizeNetGateway(apiLoginID: FakeAuthorizeNetServer.apiLoginID, transactionKey: FakeAuthorizeNetServer.transactionKey,
                                          endpoint: fake.url)
        let original = try #require(await gateway.sale(first).networkTransactionID)
        try await setup.credentials.record(original, secureCardReference: card.reference, merchantID: setup.merchant.id, gateway: "authorizenet",
                                           transactionID: nil, replacing: true)
        let view = try await Self.twoSteps(setup, card: card)
        try await Self.run(setup, through: "2027-04-02")

        for step in view.steps {
            let charges = fake.transactions(invoiceNumber: ChargeRunner.orderReference(stepID: step.id, attempt: 1))
            let charge = try #require(charges.first)
            #expect(charge.processingOptions == ["isSubsequentAuth"])
            #expect(charge.originalNetworkTransId == original)
        }
        let rows = try await setup.fixture.store.transactions(
            merchantID: setup.merchant.id, filter: TransactionFilter(), order: .oldestFirst, afterSequence: nil, limit: 10)
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0.status == .approved && $0.storedCredential == .subsequent })
        #expect(rows.allSatisfy { $0.networkTransactionID?.hasPrefix("********") == true })
    }

    @Test func aFirstPaymentSettledByLookUpStartsTheSeriesAsOneAnsweredDirectly() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let setup = try await Self.setUp(gateway: "nmi", url: fake.baseURL, credentials: ["security_key": FakeNMIServer.securityKey])
        let card = try await setup.fixture.card("c", pan: "4111111111111111", merchant: setup.merchant, now: Self.now)
        let view = try await Self.twoSteps(setup, card: card)
        // The first payment is charged, its answer lost; the same run's look-up fails too.
        fake.core.enqueue(.garbageAfterProcessing)
        fake.core.enqueue(.status(503), for: .lookup)
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.retryBackoff = .milliseconds(1)
        options.inDoubtGrace = 0
        _ = try await Self.runner(setup).run(options)
        #expect(try await setup.credentials.originalNetworkTransactionID(
            secureCardReference: card.reference, merchantID: setup.merchant.id, gateway: "nmi") == nil)
        // The next run settles it by look-up, and keeps its network id as the direct path would.
        _ = try await Self.runner(setup).run(options)
        let first = try #require(fake.transactions(orderID: ChargeRunner.orderReference(stepID: view.steps[0].id, attempt: 1)).first)
        #expect(try await setup.credentials.originalNetworkTransactionID(
            secureCardReference: card.reference, merchantID: setup.merchant.id, gateway: "nmi") == first.transactionID)
        try await Self.run(setup, through: "2027-04-02")
        let second = try #require(fake.transactions(orderID: ChargeRunner.orderReference(stepID: view.steps[1].id, attempt: 1)).first)
        #expect(second.storedCredential["initial_transaction_id"] == first.transactionID, "the series refers to its first payment")
        #expect(fake.receivedTypes == ["sale", "sale"], "the first payment was never sent again")
    }

    @Test func nmiFirstScheduledChargeStartsTheSeriesAndTheNextRefersToIt() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let setup = try await Self.setUp(gateway: "nmi", url: fake.baseURL, credentials: ["security_key": FakeNMIServer.securityKey])
        let card = try await setup.fixture.card("c", pan: "4111111111111111", merchant: setup.merchant, now: Self.now)
        let view = try await Self.twoSteps(setup, card: card)

        try await Self.run(setup, through: "2027-03-02")
        let first = try #require(fake.transactions(orderID: ChargeRunner.orderReference(stepID: view.steps[0].id, attempt: 1)).first)
        #expect(first.storedCredential == ["billing_method": "recurring", "initiated_by": "merchant", "stored_credential_indicator": "used"])
        let kept = try await setup.credentials.originalNetworkTransactionID(
            secureCardReference: card.reference, merchantID: setup.merchant.id, gateway: "nmi")
        #expect(kept == first.transactionID)

        try await Self.run(setup, through: "2027-04-02")
        let second = try #require(fake.transactions(orderID: ChargeRunner.orderReference(stepID: view.steps[1].id, attempt: 1)).first)
        #expect(second.storedCredential["initial_transaction_id"] == first.transactionID)
        #expect(second.storedCredential["initiated_by"] == "merchant")
        // Kept sealed: the clear id is nowhere in the table.
        let clearID = Data(first.transactionID.utf8)
        let rows = try await setup.fixture.database.sql.query("SELECT sealed_network_transaction_id, masked FROM stored_credentials")
        #expect(!rows.isEmpty)
        let clear = rows.filter { row in
            row.values.contains { value in
                switch value {
                case .text(let text): Data(text.utf8).range(of: clearID) != nil
                case .blob(let bytes): Data(bytes).range(of: clearID) != nil
                default: false
                }
            }
        }
        #expect(clear.isEmpty)
    }

    @Test func aNineteenDigitCardIsDeclinedLocallyOnASixteenDigitGateway() async throws {
        let fake = try await FakeAuthorizeNetServer.start()
        defer { Task { await fake.stop() } }
        let setup = try await Self.setUp(gateway: "authorizenet", url: fake.url, credentials: [
            "name": FakeAuthorizeNetServer.apiLoginID, "transactionKey": FakeAuthorizeNetServer.transactionKey])
        let card = try await setup.fixture.card("c", pan: "6011000000000000001", merchant: setup.merchant, now: Self.now)
        let view = try await Self.twoSteps(setup, card: card)
        try await Self.run(setup, through: "2027-03-02")

        #expect(fake.core.requests.isEmpty)
        let steps = try await setup.fixture.steps(view.schedule.id)
        #expect(steps[0].status == .failed)
        let rows = try await setup.fixture.store.transactions(
            merchantID: setup.merchant.id, filter: TransactionFilter(), order: .oldestFirst, afterSequence: nil, limit: 10)
        #expect(rows.map(\.declineCode) == ["unsupported_card"])
        #expect(rows.map(\.declineCategory) == ["hard"])
        #expect(rows.first?.gatewayTransactionID == nil)
    }

    @Test(arguments: [("authorizenet", "KWD"), ("nmi", "BHD")])
    func aCurrencyTheGatewayCannotExpressIsRefusedAtScheduleCreation(_ gateway: String, _ currency: String) async throws {
        let setup = try await Self.setUp(
            gateway: gateway, url: "http://127.0.0.1:9",
            credentials: gateway == "nmi" ? ["security_key": "s"] : ["name": "n", "transactionKey": "k"])
        let card = try await setup.fixture.card("c", pan: "4111111111111111", merchant: setup.merchant, now: Self.now)
        await #expect(throws: ScheduleError.invalid(field: "currency", rule: "unsupported_currency",
                                                    message: GatewayPreChecks.forGateway(named: gateway)!.refusal(currency: try Currency(code: currency))!.message)) {
            _ = try await setup.fixture.schedules.create(
                NewSchedule(secureCardReference: card.reference, amount: 1_250, currency: currency,
                                plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02")),
                merchant: setup.merchant, actor: "test", now: Self.now)
        }
        // The same schedule in JPY (expressible as x.00) is accepted.
        _ = try await setup.fixture.schedules.create(
            NewSchedule(secureCardReference: card.reference, amount: 1_250, currency: "JPY",
                            plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02")),
            merchant: setup.merchant, actor: "test", now: Self.now)
    }
}
