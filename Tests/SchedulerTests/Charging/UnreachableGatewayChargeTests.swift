import Foundation
@testable import GatewayFakes
import Payments
@testable import Scheduler
import Testing
import Vault
import VaultSQLite

/// A gateway whose port is closed: a refused connection is an answer (nothing was sent), given at
/// once rather than after the exchange's whole timeout; after `unreachableLimit` of them in a row
/// the run stops charging the merchant and says so; the steps stay unsettled for the next run,
/// never in doubt or in review.
@Suite struct UnreachableGatewayChargeTests {
    static let now = Timestamp.parse("2027-03-01T00:00:00Z")!

    struct Setup {
        let fixture: ChargingFixture
        let merchant: Merchant
        let runner: ChargeRunner
        let logs: WebhookLogs
    }

    /// A merchant on NMI at `port`, `steps` steps due, and a runner whose gateway exchanges may take
    /// `timeout`.
    static func setUp(port: RefusingPort, steps: Int, timeout: Duration) async throws -> Setup {
        let fixture = try await ChargingFixture()
        let merchant = try await fixture.merchants.create(
            name: "shop", role: .admin,
            settings: MerchantSettings(gateway: "nmi", gatewayURL: port.baseURL, gatewayCredentials: ["security_key": "k"], verifyOnRegistration: false),
            actor: "test"
        ).merchant
        for index in 0..<steps {
            let card = try await fixture.card("c\(index)", pan: "4111111111111111", merchant: merchant, now: now)
            _ = try await fixture.schedule(
                card, amount: 1_000 + Int64(index), currency: "USD", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"),
                merchant: merchant, now: now)
        }
        let logs = WebhookLogs()
        let registry = GatewayRegistry(sandbox: fixture.sandbox, logger: GatewayFixtures.quietLogger, timeout: timeout)
        let runner = ChargeRunner(
            store: fixture.store, cards: fixture.cards, gateways: MerchantGateways(registry: registry, merchants: fixture.merchants),
            merchants: fixture.store, policy: RetryPolicy(), logger: logs.logger)
        return Setup(fixture: fixture, merchant: merchant, runner: runner, logs: logs)
    }

    static func options(unreachableLimit: Int) -> ChargeRunner.Options {
        var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
        options.inDoubtGrace = 0
        options.gatewayRetries = 0
        options.concurrency = 1
        options.unreachableLimit = unreachableLimit
        options.sleep = { _ in }
        return options
    }

    @Test func aRefusedConnectionIsAnAnswerAtOnceNotAWaitForTheWholeTimeout() async throws {
        let port = RefusingPort()
        // Five steps, three tries each (the in-run retries, without their backoff): a client that
        // kept connecting again until its connect timeout (10 s) took 150 s for them; the answer to
        // a refused connection takes milliseconds. The bound is far from both.
        let setup = try await Self.setUp(port: port, steps: 5, timeout: .seconds(60))
        var options = Self.options(unreachableLimit: 100)
        options.gatewayRetries = 2
        let started = ContinuousClock.now
        let summary = try await setup.runner.run(options)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(30), "15 refused connections took \(elapsed)")
        #expect(summary.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 5)
        #expect(summary.failuresByCode == ["gateway_unreachable": 5])
        #expect(try await setup.fixture.count("SELECT count(*) AS n FROM transactions WHERE status = 'error' AND error_code = 'gateway_unreachable'") == 5)
    }

    @Test func afterTheLimitOfUnreachableAnswersTheRunStopsChargingTheMerchantAndSaysSo() async throws {
        let port = RefusingPort()
        let setup = try await Self.setUp(port: port, steps: 5, timeout: .seconds(60))
        let summary = try await setup.runner.run(Self.options(unreachableLimit: 2))
        #expect(summary.unreachableMerchants == [setup.merchant.id])
        #expect(summary.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 5)
        #expect(summary.failuresByCode == ["gateway_unreachable": 5])
        #expect(!summary.settled)
        #expect(summary.table.contains("GATEWAY UNREACHABLE: stopped charging merchant(s) \(setup.merchant.id)"))
        // Two sales were tried; the others were not sent at all.
        #expect(try await setup.fixture.count("SELECT count(*) AS n FROM transactions WHERE response_text LIKE 'Not sent:%'") == 3)
        let stops = setup.logs.text.split(separator: "\n").filter { $0.hasPrefix("warning gateway unreachable: the run stops charging") }
        #expect(stops.count == 1, "\(stops)")
        #expect(stops.first?.contains(setup.merchant.id) == true)
        let unsettled = setup.logs.text.split(separator: "\n").filter { $0.hasPrefix("warning charges unsettled") }
        #expect(unsettled.count == 1, "one warning per merchant and code: \(unsettled)")
        #expect(unsettled.first?.contains("\"steps\": 5") == true, "\(unsettled)")

        // The gateway still down the next nights: the steps stay unsettled errors, never in doubt
        // or in review (nothing was ever sent).
        for _ in 0..<2 {
            _ = try await setup.runner.run(Self.options(unreachableLimit: 2))
        }
        #expect(try await setup.fixture.count("SELECT count(*) AS n FROM transactions WHERE status IN ('in_doubt', 'needs_review')") == 0)
        #expect(try await setup.fixture.count("SELECT count(*) AS n FROM schedule_steps WHERE status = 'needs_review'") == 0)
    }
}
