import Foundation
@testable import GatewayFakes
import Payments
import Logging
import Testing
import Vault
@testable import Scheduler
import VaultSQLite

/// Through the charge runner against each gateway's fake: a charge whose answer
/// was lost is found by the next run's lookup even after it settled (recorded, never re-sent);
/// when the lookup cannot prove absence the step goes to `needs_review` and is never re-sent.
@Suite struct LostAnswerLookupTests {
    /// A fixture with one `delayedOnce` step of 12.34 USD on 2027-03-02, for a merchant of `gateway`.
    struct Setup {
        let fixture: ChargingFixture
        let merchant: Merchant
        let scheduleID: String
        let stepID: String
        let options: ChargeRunner.Options

        func step() async throws -> ScheduleStep {
            try #require(try await fixture.steps(scheduleID).first)
        }

        /// A runner whose logs (and its adapters') stay quiet.
        func runner(policy: RetryPolicy = RetryPolicy()) -> ChargeRunner {
            var quiet = Logger(label: "test.quiet")
            quiet.logLevel = .critical
            let registry = GatewayRegistry(sandbox: fixture.sandbox, logger: quiet)
            return ChargeRunner(
                store: fixture.store, cards: fixture.cards, gateways: MerchantGateways(registry: registry, merchants: fixture.merchants),
                merchants: fixture.store, policy: policy, logger: quiet)
        }

        func count(_ sql: SQLiteQuery) async throws -> Int {
            try await fixture.count(sql)
        }
    }

    static let now = Timestamp.parse("2027-03-01T00:00:00Z")!

    static func setUp(gateway: String, url: String, credentials: [String: String]) async throws -> Setup {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchants.create(
            name: "m-\(gateway)", role: .admin,
            settings: .init(gateway: gateway, gatewayURL: url, gatewayCredentials: credentials, timeZone: "UTC", verifyOnRegistration: false),
            actor: "test").merchant
        let card = try await fixture.card("c", pan: "4111111111111111", merchant: merchant, now: now)
        let view = try await fixture.schedule(
            card, amount: 1234, currency: "USD", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: now)
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.retryBackoff = .milliseconds(1)
        options.inDoubtGrace = 0
        return Setup(fixture: fixture, merchant: merchant, scheduleID: view.schedule.id, stepID: try #require(view.steps.first).id, options: options)
    }

    static func authorizeNet(_ fake: FakeAuthorizeNetServer) async throws -> Setup {
        try await setUp(gateway: "authorizenet", url: fake.url, credentials: [
            "name": FakeAuthorizeNetServer.apiLoginID, "transactionKey": FakeAuthorizeNetServer.transactionKey,
        ])
    }

    static func nmi(_ fake: FakeNMIServer) async throws -> Setup {
        try await setUp(gateway: "nmi", url: fake.baseURL, credentials: ["security_key": FakeNMIServer.securityKey])
    }

    static func reviewEvents(_ stepID: String) -> SQLiteQuery {
        "SELECT count(*) AS n FROM webhook_events WHERE type = 'charge.needs_review' AND payload LIKE '%' || \(stepID) || '%'"
    }

    // MARK: - Authorize.Net

    @Test func authorizeNetLostAnswerThenSettlementIsFoundAndNotResent() async throws {
        let fake = try await FakeAuthorizeNetServer.start()
        defer { Task { await fake.stop() } }
        let setup = try await Self.authorizeNet(fake)
        let runner = setup.runner()
        // Processed, answered with garbage; the same run's lookup fails too.
        fake.core.enqueue(.garbageAfterProcessing)
        fake.core.enqueue(.status(503), for: .lookup)
        let first = try await runner.run(setup.options)
        #expect(first.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 1)
        // The charge settles before the next run: only a settled-batch search finds it.
        fake.settleAll()
        let second = try await runner.run(setup.options)
        #expect(second.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(second.settled)
        #expect(fake.receivedTransactionTypes == ["authCaptureTransaction"], "never re-sent")
        let step = try await setup.step()
        #expect(step.status == .approved && step.attempts == 1)
        let settled = try #require(fake.transactions(invoiceNumber: ChargeRunner.orderReference(stepID: setup.stepID, attempt: 1)).first)
        #expect(try await setup.count(
            """
            SELECT count(*) AS n FROM transactions WHERE step_id = \(setup.stepID) AND status = 'approved'
                AND gateway_transaction_id = \(settled.transId)
            """) == 1)
    }

    @Test func authorizeNetLostAnswerWithoutProofGoesToReviewAndIsNeverResent() async throws {
        let fake = try await FakeAuthorizeNetServer.start()
        defer { Task { await fake.stop() } }
        let setup = try await Self.authorizeNet(fake)
        let runner = setup.runner()
        fake.core.enqueue(.garbageAfterProcessing)
        fake.core.enqueue(.status(503), for: .lookup)
        _ = try await runner.run(setup.options)
        fake.settleAll()
        // The next run's search fails part way (the settled batch list): absence is not proven.
        fake.failReports("getSettledBatchListRequest")
        let second = try await runner.run(setup.options)
        #expect(second.outcomes[ChargeOutcome.needsReview.rawValue]?.count == 1)
        #expect(!second.settled)
        #expect(second.table.contains("NEED REVIEW"))
        #expect(try await setup.step().status == .needsReview)
        #expect(try await setup.count(Self.reviewEvents(setup.stepID)) == 1)
        #expect(try await setup.count(
            """
            SELECT count(*) AS n FROM audit_events WHERE action = 'charge.needs_review' AND details LIKE '%' || \(setup.stepID) || '%'
            """) == 1)
        // Later runs leave it alone, whatever the gateway would now say.
        let third = try await runner.run(setup.options)
        #expect(third.processed == 0)
        #expect(third.stepsInReview == 1 && third.table.contains("1 step(s) in review"))
        #expect(fake.receivedTransactionTypes == ["authCaptureTransaction"], "never re-sent")
        #expect(try await setup.step().status == .needsReview)
    }

    // MARK: - NMI

    @Test func nmiLostAnswerThenSettlementIsFoundAndNotResent() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let setup = try await Self.nmi(fake)
        let runner = setup.runner()
        fake.core.enqueue(.garbageAfterProcessing)
        fake.core.enqueue(.status(503), for: .lookup)
        let first = try await runner.run(setup.options)
        #expect(first.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 1)
        fake.settleAll()
        let second = try await runner.run(setup.options)
        #expect(second.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(fake.receivedTypes == ["sale"], "never re-sent")
        #expect(try await setup.step().status == .approved)
    }

    /// A step of an NMI merchant in review: the sale's answer was unreadable and every lookup failed.
    static func nmiStepInReview(_ fake: FakeNMIServer) async throws -> (Setup, ChargeRunSummary) {
        let setup = try await Self.nmi(fake)
        let runner = setup.runner()
        fake.core.enqueue(.garbage)
        fake.core.enqueue(.status(503), for: .lookup)
        fake.core.enqueue(.status(500), for: .lookup)
        _ = try await runner.run(setup.options)
        return (setup, try await runner.run(setup.options))
    }

    @Test func nmiLostAnswerWithLookupErrorsGoesToReviewAndIsNeverResent() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let (setup, second) = try await Self.nmiStepInReview(fake)
        let runner = setup.runner()
        #expect(second.outcomes[ChargeOutcome.needsReview.rawValue]?.count == 1)
        #expect(try await setup.step().status == .needsReview)
        #expect(try await setup.count(Self.reviewEvents(setup.stepID)) == 1)
        let third = try await runner.run(setup.options)
        #expect(third.processed == 0)
        #expect(fake.receivedTypes == ["sale"], "never re-sent, though the gateway never saw it")
    }

    @Test func aLookupThatProvesAbsenceStillResendsAfterTheGracePeriod() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let setup = try await Self.nmi(fake)
        let runner = setup.runner()
        fake.core.enqueue(.garbage)
        fake.core.enqueue(.status(503), for: .lookup)
        _ = try await runner.run(setup.options)
        let second = try await runner.run(setup.options)
        #expect(second.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
        #expect(fake.receivedTypes == ["sale", "sale"])
        #expect(fake.transactions(orderID: ChargeRunner.orderReference(stepID: setup.stepID, attempt: 1)).count == 1)
    }
}
