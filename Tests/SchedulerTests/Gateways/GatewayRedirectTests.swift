import AsyncHTTPClient
import Foundation
@testable import GatewayFakes
import Payments
@testable import Scheduler
import Testing
import Vault
import VaultSQLite

/// A gateway endpoint answering 307 once made the vault re-send the card number,
/// the CVV and the gateway secret to the redirect target. Gateway calls never follow redirects;
/// the redirect is a final error (not charged, not in doubt).
@Suite struct GatewayRedirectTests {
    typealias F = GatewayFixtures

    /// A redirector pointing at a collecting listener, both on loopback.
    func withRedirect(status: Int = 307, _ body: (FakeRedirectingGateway, FakeCollectingListener) async throws -> Void) async throws {
        let target = try await FakeCollectingListener.start()
        let redirector = try await FakeRedirectingGateway.start(status: status, to: target.baseURL)
        do {
            try await body(redirector, target)
        } catch {
            await redirector.stop()
            await target.stop()
            throw error
        }
        await redirector.stop()
        await target.stop()
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func anNMISaleAnsweredWithARedirectSendsNothingToTheTargetAndIsAFinalError(status: Int) async throws {
        try await withRedirect(status: status) { redirector, target in
            // The production client (GatewayRegistry.sharedClient) is the adapter's default.
            let gateway = NMIGateway(securityKey: "NMI-SECRET-KEY-1", baseURL: redirector.baseURL)
            let result = await gateway.sale(F.charge("run-1-step-1-a1", reference: "INV-R1", card: F.card(cvv: "123")))
            #expect(result.outcome == .error(code: "gateway_redirect", retryable: false))
            #expect(!result.isApproved)
            #expect(redirector.core.requests.count == 1)
            #expect(target.core.requests.count == 0)
        }
    }

    @Test func anAuthorizeNetVerificationAnsweredWithA307SendsNothingToTheTarget() async throws {
        try await withRedirect { redirector, target in
            let gateway = AuthorizeNetGateway(
                apiLoginID: "LOGIN-1", transactionKey: "TRANSACTION-KEY-SECRET", endpoint: redirector.baseURL + AuthorizeNetGateway.endpointPath)
            let result = await gateway.verify(F.charge("verify-1", reference: "INV-R2", amount: F.money(0), card: F.card(cvv: "123")))
            #expect(result.outcome == .error(code: "gateway_redirect", retryable: false))
            let sale = await gateway.sale(F.charge("sale-1", reference: "INV-R3", card: F.card(cvv: "123")))
            #expect(sale.outcome == .error(code: "gateway_redirect", retryable: false))
            #expect(target.core.requests.count == 0)
        }
    }

    @Test func aClientBuiltFromTheGatewayConfigurationDoesNotFollowRedirectsEither() async throws {
        try await withRedirect { redirector, target in
            let client = makeNoRetryHTTPClient()
            let gateway = NMIGateway(securityKey: "NMI-SECRET-KEY-2", baseURL: redirector.baseURL, httpClient: client)
            #expect(await gateway.sale(F.charge("k2", reference: "INV-R4")).outcome == .error(code: "gateway_redirect", retryable: false))
            #expect(target.core.requests.count == 0)
            try await client.shutdown()
        }
    }

    @Test func theChargeRunnerRecordsARedirectedSaleAsAnErrorNeitherApprovedNorInDoubtAndDoesNotResendIt() async throws {
        try await withRedirect { redirector, target in
            let fixture = try await ChargingFixture()
            let now = Timestamp.parse("2027-03-01T00:00:00Z")!
            let merchant = try await fixture.merchants.create(
                name: "m", role: .admin,
                settings: MerchantSettings(gateway: "nmi", gatewayURL: redirector.baseURL, gatewayCredentials: ["security_key": "NMI-SECRET-KEY-3"],
                                           verifyOnRegistration: false),
                actor: "test").merchant
            let card = try await fixture.card("c", pan: "4111111111111111", merchant: merchant, now: now)
            let view = try await fixture.schedule(
                card, amount: 1234, currency: "USD", plan: PlanTerms(type: "delayedOnce", startDate: "2027-03-02"), merchant: merchant, now: now)
            var options = ChargeRunner.Options(asOf: ChargingFixture.endOfDay("2027-03-02"))
            options.retryBackoff = .milliseconds(1)
            options.inDoubtGrace = 0
            let summary = try await fixture.runner().run(options)

            #expect((summary.outcomes[ChargeOutcome.approved.rawValue]?.count ?? 0) == 0)
            #expect(summary.outcomes[ChargeOutcome.unsettled.rawValue]?.count == 1)
            #expect(!summary.settled)
            #expect(redirector.core.requests.count == 1, "sent \(redirector.core.requests.count) times")
            #expect(target.core.requests.count == 0)
            #expect(try await fixture.count("SELECT count(*) AS n FROM transactions WHERE status = 'error' AND error_code = 'gateway_redirect'") == 1)
            #expect(try await fixture.count("SELECT count(*) AS n FROM transactions WHERE status IN ('approved', 'in_doubt')") == 0)
            let step = try #require(try await fixture.steps(view.schedule.id).first)
            #expect(step.status != .approved)

            // The next run looks the attempt up (redirected too) and never re-sends it, nor calls it in doubt.
            let again = try await fixture.runner().run(options)
            #expect(!again.settled)
            #expect(redirector.core.requests.filter { $0.path == "/api/transact.php" }.count == 1)
            #expect(redirector.core.requests.filter { $0.path == "/api/query.php" }.count >= 1)
            #expect(target.core.requests.count == 0)
            #expect(try await fixture.count("SELECT count(*) AS n FROM transactions WHERE status = 'error' AND error_code = 'gateway_redirect'") == 1)
            #expect(try await fixture.count("SELECT count(*) AS n FROM transactions WHERE status IN ('approved', 'in_doubt')") == 0)
        }
    }
}
