import Foundation
@testable import GatewayFakes
import Logging
import Payments
import Testing
import Vault
@testable import Scheduler
import VaultSQLite

/// The review queue over the charge runner and the gateways' fakes: a step left in review by a
/// lost answer is listed with the order reference its gateway stores, looked up again on demand
/// (reporting, recording nothing) and resolved in bulk through the single-step rules.
@Suite struct ReviewQueueServiceTests {
    typealias Lost = LostAnswerLookupTests

    static func queue(_ fixture: ChargingFixture) -> ReviewQueueService {
        var quiet = Logger(label: "test.quiet")
        quiet.logLevel = .critical
        let registry = GatewayRegistry(sandbox: fixture.sandbox, logger: quiet)
        return ReviewQueueService(
            store: fixture.store, steps: StepReviewService(store: fixture.store, policy: RetryPolicy(), keyring: fixture.keyring),
            transactions: TransactionReviewService(store: fixture.store, keyring: fixture.keyring),
            gateways: MerchantGateways(registry: registry, merchants: fixture.merchants), keyring: fixture.keyring)
    }

    /// A step of an NMI merchant in review whose sale the gateway did charge: its answer was lost
    /// after processing and both look-ups of the runs failed.
    static func chargedStepInReview(_ fake: FakeNMIServer) async throws -> Lost.Setup {
        let setup = try await Lost.nmi(fake)
        let runner = setup.runner()
        fake.core.enqueue(.garbageAfterProcessing)
        fake.core.enqueue(.status(503), for: .lookup)
        fake.core.enqueue(.status(500), for: .lookup)
        _ = try await runner.run(setup.options)
        _ = try await runner.run(setup.options)
        #expect(try await setup.step().status == .needsReview)
        return setup
    }

    @Test func aStepInReviewIsListedWithItsAttemptsOrderReferenceReasonAndDueDate() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let setup = try await Self.chargedStepInReview(fake)
        let step = try await setup.step()
        let items = try await Self.queue(setup.fixture).list(merchant: setup.merchant, afterSequence: nil, limit: 10)
        let item = try #require(items.first)
        #expect(items.count == 1)
        #expect(item.kind == .step && item.id == setup.stepID && item.scheduleID == setup.scheduleID)
        #expect(item.dueAt == step.dueAt)
        #expect(item.amount == 1234 && item.currency.code == "USD" && item.type == .sale)
        #expect(item.maskedNumber?.hasSuffix("1111") == true && item.maskedNumber?.contains("4111111111111111") == false)
        #expect(item.secureCardReference?.isEmpty == false)
        let reference = ChargeRunner.orderReference(stepID: setup.stepID, attempt: 1)
        #expect(item.orderReference == reference)
        #expect(item.gatewayOrderReference == reference, "NMI stores our reference as orderid")
        #expect(fake.transactions(orderID: reference).count == 1, "the reference is what the gateway holds")
        #expect(item.reason?.hasPrefix("lookup_unavailable") == true, "\(String(describing: item.reason))")
        #expect(try await Self.queue(setup.fixture).list(merchant: setup.merchant, afterSequence: item.sequence, limit: 10).isEmpty)
    }

    @Test func aLookUpReportsWhatTheGatewayHoldsAndRecordsNothing() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let setup = try await Self.chargedStepInReview(fake)
        let queue = Self.queue(setup.fixture)
        let results = try await queue.lookup(
            [ReviewItemReference(kind: .step, id: setup.stepID), ReviewItemReference(kind: .step, id: "stp_unknown")], merchant: setup.merchant)
        let charged = try #require(fake.transactions(orderID: ChargeRunner.orderReference(stepID: setup.stepID, attempt: 1)).first)
        #expect(results.map(\.outcome) == [
            .found(outcome: "approved", gatewayTransactionID: charged.transactionID),
            .refused(code: "not_found", message: "No step of this merchant has this id."),
        ])
        #expect(try await setup.step().status == .needsReview, "a look-up records nothing")
        #expect(fake.receivedTypes == ["sale"], "nothing is sent again")
    }

    @Test func aBulkResolutionAppliesEachItemByTheSingleRulesAndReportsTheRefusedOnes() async throws {
        let fake = try await FakeNMIServer.start()
        defer { Task { await fake.stop() } }
        let (setup, _) = try await Lost.nmiStepInReview(fake)
        let queue = Self.queue(setup.fixture)
        let results = try await queue.resolve(
            [
                ReviewItemResolution(kind: .transaction, id: "txn_unknown", resolution: .notCharged),
                ReviewItemResolution(kind: .step, id: setup.stepID, resolution: .charged(gatewayTransactionID: "9100000042")),
            ], merchant: setup.merchant, actor: "operator")
        #expect(results.map(\.outcome) == [
            .refused(code: "not_found", message: "No one-off transaction of this merchant has this id."), .applied(status: "approved"),
        ])
        #expect(try await setup.step().status == .approved)
        #expect(try await setup.count(
            "SELECT count(*) AS n FROM audit_events WHERE action = 'charge.resolved' AND actor = 'operator'") == 1)
        let again = try await queue.resolve(
            [ReviewItemResolution(kind: .step, id: setup.stepID, resolution: .notCharged)], merchant: setup.merchant, actor: "operator")
        guard case .refused(let code, _) = try #require(again.first).outcome else {
            Issue.record("a step resolved already was resolved again")
            return
        }
        #expect(code == "step_not_in_review")
        #expect(try await setup.step().status == .approved)
        #expect(try await queue.list(merchant: setup.merchant, afterSequence: nil, limit: 10).isEmpty)
    }

    @Test func atBridgePayTheQueueShowsTheInvoiceNumberTheGatewayWasSent() async throws {
        try await BridgePayChargeRunTests.withSetup(grace: 0) { setup in
            let step = try await setup.step(card: "noproof", amount: 1_700)
            setup.fake.core.enqueue(.garbageAfterProcessing)
            for _ in 0..<4 { setup.fake.core.enqueue(.status(503), for: .lookup) }
            let runner = setup.fixture.runner()
            _ = try await runner.run(setup.options)
            _ = try await runner.run(setup.options)
            let item = try #require(try await Self.queue(setup.fixture).list(merchant: setup.merchant, afterSequence: nil, limit: 10).first)
            #expect(item.id == step)
            let sent = FakeBridgePayXML.fields(try #require(setup.fake.receivedDocuments.first))["InvoiceNum"]
            #expect(item.gatewayOrderReference == sent)
            #expect(item.gatewayOrderReference != item.orderReference, "our 20-character reference is not what BridgePay holds")
        }
    }
}
