import Foundation
@testable import GatewayFakes
import Payments
@testable import Scheduler
import Synchronization
import Testing
import Vault
import VaultSQLite

/// Gateway error classes through the charge runner against the NMI and Authorize.Net fakes: a
/// permanent error settles once, a rate limit is retried honouring `Retry-After`, and two equal
/// steps on one card are both charged.
@Suite struct GatewayErrorClassChargeTests {
    /// A fake with the merchant settings that point at it.
    struct Fake {
        let core: FakeGatewayCore
        let settings: MerchantSettings
        let charges: @Sendable () -> Int
        let nmi: FakeNMIServer?
        let stop: @Sendable () async -> Void
        /// The card and amount (minor units) the fake answers with a permanent error.
        let refusedCard: String
        let refusedAmount: Int64
    }

    static func start(_ gateway: String) async throws -> Fake {
        switch gateway {
        case "nmi":
            let fake = try await FakeNMIServer.start()
            return Fake(core: fake.core,
                        settings: MerchantSettings(gateway: "nmi", gatewayURL: fake.baseURL,
                                                   gatewayCredentials: ["security_key": FakeNMIServer.securityKey], verifyOnRegistration: false),
                        charges: { fake.chargeCount }, nmi: fake, stop: { await fake.stop() },
                        refusedCard: "4111111111111111", refusedAmount: 44_100)
        default:
            let fake = try await FakeAuthorizeNetServer.start()
            return Fake(core: fake.core,
                        settings: MerchantSettings(gateway: "authorizenet", gatewayURL: fake.url,
                                                   gatewayCredentials: ["name": FakeAuthorizeNetServer.apiLoginID,
                                                                        "transactionKey": FakeAuthorizeNetServer.transactionKey],
                                                   verifyOnRegistration: false),
                        charges: { fake.chargeCount }, nmi: nil, stop: { await fake.stop() },
                        refusedCard: FakeAuthorizeNetServer.triggerCard, refusedAmount: 3_300)
        }
    }

    static let now = Timestamp.parse("2027-03-01T00:00:00Z")!

    /// The waits the runner asked for (it never really sleeps in these tests).
    final class Sleeps: Sendable {
        private let list = Mutex<[Duration]>([])
        var all: [Duration] { list.withLock { $0 } }
        func record(_ duration: Duration) { list.withLock { $0.append(duration) } }
    }

    static func options(sleeps: Sleeps = Sleeps()) -> ChargeRunner.Options {
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.inDoubtGrace = 0
        options.sleep = { duration in sleeps.record(duration) }
        return options
    }

    func transactRequests(_ fake: Fake) -> Int {
        fake.core.requests.filter { $0.path == "/api/transact.php" || $0.text.contains("createTransactionRequest") }.count
    }

    @Test(arguments: ["nmi", "authorizenet"])
    func aPermanentErrorSettlesTheAttemptOnceAndIsNeverSentAgain(_ gateway: String) async throws {
        let fake = try await Self.start(gateway)
        defer { Task { await fake.stop() } }
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchants.create(name: "m", role: .admin, settings: fake.settings, actor: "test").merchant
        let card = try await fixture.card("c", pan: fake.refusedCard, merchant: merchant, now: Self.now)
        let view = try await fixture.schedule(card, amount: fake.refusedAmount, currency: "USD",
                                              plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: Self.now)
        let first = try await fixture.runner().run(Self.options())
        #expect(first.outcomes[ChargeOutcome.failed.rawValue]?.count == 1)
        #expect(first.settled)
        let step = try #require(try await fixture.steps(view.schedule.id).first)
        #expect(step.status == .failed)
        #expect(try await fixture.count("SELECT count(*) AS n FROM transactions WHERE status = 'error' AND decline_category = 'error'") == 1)
        #expect(try await fixture.count("SELECT count(*) AS n FROM transactions WHERE response_text IS NOT NULL AND status = 'error'") == 1)
        let sent = transactRequests(fake)
        #expect(sent == 1)

        let second = try await fixture.runner().run(Self.options())
        #expect(second.due.count == 0)
        #expect(transactRequests(fake) == sent, "a settled permanent error was sent again")
        #expect(fake.charges() == 0)
    }

    @Test(arguments: ["nmi", "authorizenet"])
    func aRateLimitIsRetriedInTheRunHonouringRetryAfterAndChargedOnce(_ gateway: String) async throws {
        let fake = try await Self.start(gateway)
        defer { Task { await fake.stop() } }
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchants.create(name: "m", role: .admin, settings: fake.settings, actor: "test").merchant
        let card = try await fixture.card("c", pan: "4111111111111111", merchant: merchant, now: Self.now)
        let view = try await fixture.schedule(card, amount: 2_500, currency: "USD",
                                              plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: Self.now)
        fake.core.enqueue(gateway == "nmi" ? .rateLimitReply : .rateLimitedStatus(429, retryAfter: 3))
        fake.core.enqueue(.rateLimitedStatus(503, retryAfter: 9))
        let sleeps = Sleeps()
        let summary = try await fixture.runner().run(Self.options(sleeps: sleeps))
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(try #require(try await fixture.steps(view.schedule.id).first).status == .approved)
        #expect(fake.charges() == 1)
        #expect(transactRequests(fake) == 3)
        let waited = sleeps.all
        #expect(waited.count == 2)
        #expect(waited.last == .seconds(9), "Retry-After honoured: \(waited)")
    }

    @Test func aRateLimitThatOutlastsTheRetriesIsLeftForTheNextRunNeverFailed() async throws {
        let fake = try await Self.start("nmi")
        defer { Task { await fake.stop() } }
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchants.create(name: "m", role: .admin, settings: fake.settings, actor: "test").merchant
        let card = try await fixture.card("c", pan: "4111111111111111", merchant: merchant, now: Self.now)
        let view = try await fixture.schedule(card, amount: 2_500, currency: "USD",
                                              plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: Self.now)
        for _ in 0..<3 { fake.core.enqueue(.rateLimitReply) }
        let first = try await fixture.runner().run(Self.options())
        #expect(first.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 1)
        #expect(try #require(try await fixture.steps(view.schedule.id).first).status == .processing)
        #expect(fake.charges() == 0)
        let second = try await fixture.runner().run(Self.options())
        #expect(second.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(fake.charges() == 1)
    }

    /// NMI's duplicate check is card + amount within 1,200 s by default: two different steps of
    /// the same amount on one card in one run collided (the fake enforces the real rule).
    /// Authorize.Net's duplicate window also looks at the invoice number, which differs per step.
    @Test(arguments: ["nmi", "authorizenet"])
    func twoEqualStepsOnOneCardInOneRunAreBothChargedOnce(_ gateway: String) async throws {
        let fake = try await Self.start(gateway)
        defer { Task { await fake.stop() } }
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchants.create(name: "m", role: .admin, settings: fake.settings, actor: "test").merchant
        let card = try await fixture.card("c", pan: "4111111111111111", merchant: merchant, now: Self.now)
        for _ in 0..<2 {
            _ = try await fixture.schedule(card, amount: 1_999, currency: "USD",
                                           plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: Self.now)
        }
        let summary = try await fixture.runner().run(Self.options())
        #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 2)
        #expect(summary.settled)
        #expect(fake.charges() == 2)
        let again = try await fixture.runner().run(Self.options())
        #expect(again.due.count == 0)
        #expect(fake.charges() == 2)
    }
}
