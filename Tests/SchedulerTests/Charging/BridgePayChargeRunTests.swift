import Foundation
@testable import GatewayFakes
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault
@testable import VaultSQLite

/// The charge runner against the BridgePay fake over
/// loopback HTTP. Every test checks what the gateway holds, not only what the vault recorded.
@Suite struct BridgePayChargeRunTests {
    static let now = Timestamp.parse("2027-03-01T00:00:00Z")!

    struct Setup {
        let fixture: ChargingFixture
        let fake: FakeBridgePayServer
        let merchant: Merchant
        var options: ChargeRunner.Options

        /// Registers a card (without verification) and a confirmed `delayedOnce` step of `amount` cents on 2027-03-02.
        func step(card reference: String, pan: String = "4111111111111111", amount: Int64) async throws -> String {
            let card = try await fixture.card(reference, pan: pan, merchant: merchant, now: BridgePayChargeRunTests.now)
            let view = try await fixture.schedule(card, amount: amount, currency: "USD",
                                                  plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"),
                                                  merchant: merchant, now: BridgePayChargeRunTests.now)
            return try #require(view.steps.first).id
        }

        func stepStatus(_ id: String) async throws -> String {
            try await fixture.database.sql.queryOne("SELECT status FROM schedule_steps WHERE id = \(id)")?.string("status") ?? "?"
        }

        var sales: [FakeBridgePayTransaction] { fake.allTransactions.filter { $0.type == "sale" } }
    }

    /// A merchant on the BridgePay fake, with one-millisecond in-run backoff and the given grace.
    static func withSetup(grace: TimeInterval = 3600, _ body: (Setup) async throws -> Void) async throws {
        let fake = try await FakeBridgePayServer.start()
        do {
            let fixture = try await ChargingFixture()
            let merchant = try await fixture.merchants.create(
                name: "bp", role: .admin,
                settings: .init(gateway: "bridgepay", gatewayURL: fake.endpoint, gatewayCredentials: FakeBridgePayServer.credentials,
                                timeZone: "UTC", verifyOnRegistration: false),
                actor: "test").merchant
            var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
            options.retryBackoff = .milliseconds(1)
            options.inDoubtGrace = grace
            try await body(Setup(fixture: fixture, fake: fake, merchant: merchant, options: options))
        } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }

    @Test func aStepIsApprovedAndChargedOnceAsAnECommerceSale() async throws {
        try await Self.withSetup { setup in
            let step = try await setup.step(card: "c1", amount: 1_234)
            let summary = try await setup.fixture.runner().run(setup.options)
            #expect(summary.outcomes[ChargeOutcome.approved.rawValue]?.count == 1)
            #expect(try await setup.stepStatus(step) == "approved")
            #expect(setup.sales.count == 1)
            let fields = FakeBridgePayXML.fields(try #require(setup.fake.receivedDocuments.first))
            #expect(fields["TransIndustryType"] == "EC")
            #expect(fields["InvoiceNum"]?.count == 12)
            #expect(fields["StoredCredential"] == "recurring", "a scheduled charge is a merchant-initiated recurring charge")
        }
    }

    @Test func softAndHardDeclinesAreDeclinesNotErrors() async throws {
        try await Self.withSetup { setup in
            let soft = try await setup.step(card: "soft", amount: 12_000)
            let hard = try await setup.step(card: "hard", pan: "5499740000000057", amount: 10_000)
            _ = try await setup.fixture.runner().run(setup.options)
            let codes = try await setup.fixture.database.sql.query("SELECT step_id, decline_code, decline_category FROM transactions WHERE step_id IS NOT NULL")
                .map { (try $0.string("step_id"), try $0.optionalString("decline_code") ?? "", try $0.optionalString("decline_category") ?? "") }
            #expect(codes.contains { $0 == (soft, "insufficient_funds", "soft") })
            #expect(codes.contains { $0 == (hard, "pickup_card", "hard") })
            #expect(setup.sales.count == 2)
        }
    }

    /// A request BridgePay refuses (10054, a mandatory field) settles the attempt
    /// as failed with decline category `error`, and no later run sends it again.
    @Test func aPermanentErrorSettlesTheStepOnceAndIsNeverSentAgain() async throws {
        try await Self.withSetup(grace: 0) { setup in
            let step = try await setup.step(card: "c-perm", amount: 4_321)
            setup.fake.answerNext("10054")
            let first = try await setup.fixture.runner().run(setup.options)
            #expect(first.outcomes[ChargeOutcome.failed.rawValue]?.count == 1)
            #expect(first.settled)
            #expect(try await setup.stepStatus(step) == "failed")
            #expect(try await setup.fixture.count("SELECT count(*) AS n FROM transactions WHERE status = 'error' AND decline_category = 'error'") == 1)
            let sent = setup.fake.receivedTypes.count
            let second = try await setup.fixture.runner().run(setup.options)
            #expect(second.due.count == 0)
            #expect(setup.fake.receivedTypes.count == sent, "a settled permanent error was sent again")
            #expect(setup.sales.isEmpty)
        }
    }

    /// BridgePay's duplicate check is never overridden: the second of two equal-amount steps on one
    /// card is answered "duplicate", is not proven ours by the find request, and stays unsettled
    /// (in doubt) rather than being forced through or failed.
    @Test func theSecondOfTwoEqualAmountStepsOnOneCardIsLeftInDoubtNotForced() async throws {
        try await Self.withSetup { setup in
            let card = try await setup.fixture.card("same", pan: "4111111111111111", merchant: setup.merchant, now: Self.now)
            var steps: [String] = []
            for _ in 0..<2 {
                let view = try await setup.fixture.schedule(card, amount: 2_500, currency: "USD",
                                                            plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"),
                                                            merchant: setup.merchant, now: Self.now)
                steps.append(try #require(view.steps.first).id)
            }
            var options = setup.options
            options.concurrency = 1
            _ = try await setup.fixture.runner().run(options)
            var statuses: [String] = []
            for step in steps { statuses.append(try await setup.stepStatus(step)) }
            #expect(statuses.first == "approved")
            #expect(statuses.last != "approved")
            #expect(setup.sales.count == 1)
            #expect(try await setup.fixture.count("SELECT count(*) AS n FROM transactions WHERE status = 'in_doubt'") == 1)
            _ = try await setup.fixture.runner().run(options)
            #expect(setup.sales.count == 1, "a second run charges nothing")
        }
    }

    @Test func aRateLimitIsRetriedInTheRunAndChargedOnce() async throws {
        try await Self.withSetup { setup in
            let step = try await setup.step(card: "c429", amount: 1_500)
            setup.fake.core.enqueue(.status(429))
            _ = try await setup.fixture.runner().run(setup.options)
            #expect(try await setup.stepStatus(step) == "approved")
            #expect(setup.sales.count == 1)
            #expect(setup.fake.receivedTypes.filter { $0 == "004/sale" }.count == 2)
        }
    }

    @Test func aLostAnswerIsFoundByTheFindTransactionRequestAndNotResent() async throws {
        try await Self.withSetup { setup in
            let step = try await setup.step(card: "lost", amount: 1_600)
            setup.fake.core.enqueue(.garbageAfterProcessing)
            _ = try await setup.fixture.runner().run(setup.options)
            #expect(try await setup.stepStatus(step) == "approved")
            #expect(setup.sales.count == 1)
            #expect(setup.fake.receivedTypes == ["004/sale", "023/"])
        }
    }

    /// Absence cannot be proven (every look-up fails): the sale is never sent again, whatever the
    /// grace period; the step waits for an operator in `needs_review`.
    @Test func aLostAnswerWithoutProofIsNeverResent() async throws {
        try await Self.withSetup(grace: 0) { setup in
            let step = try await setup.step(card: "noproof", amount: 1_700)
            setup.fake.core.enqueue(.garbageAfterProcessing)
            for _ in 0..<4 { setup.fake.core.enqueue(.status(503), for: .lookup) }
            let runner = setup.fixture.runner()
            _ = try await runner.run(setup.options)
            _ = try await runner.run(setup.options)
            #expect(try await setup.stepStatus(step) == "needs_review")
            #expect(setup.sales.count == 1)
            #expect(setup.fake.receivedTypes.filter { $0 == "004/sale" }.count == 1, "the charge was sent once only")
        }
    }

    @Test func aNineteenDigitCardIsNeverSent() async throws {
        try await Self.withSetup { setup in
            let step = try await setup.step(card: "long", pan: "4111111111111111110", amount: 1_800)
            _ = try await setup.fixture.runner().run(setup.options)
            #expect(try await setup.stepStatus(step) != "approved")
            #expect(setup.fake.core.requests.isEmpty)
            let code = try await setup.fixture.database.sql.queryOne(
                """
                SELECT decline_code FROM transactions WHERE step_id = \(step)
                """)?.optionalString("decline_code")
            #expect(code == "unsupported_card")
        }
    }
}
