import AsyncHTTPClient
@testable import GatewayFakes
import NIOCore
import NIOHTTP1
import Payments
import Testing
import Vault

/// The NMI adapter against the fake NMI server, over real HTTP on loopback.
@Suite struct NMIGatewayTests {
    typealias F = GatewayFixtures

    /// Runs `body` with a fresh fake and an adapter pointed at it.
    func withGateway(timeout: Duration = .seconds(30), securityKey: String = FakeNMIServer.securityKey,
                     _ body: (FakeNMIServer, NMIGateway) async throws -> Void) async throws {
        let fake = try await FakeNMIServer.start()
        let gateway = NMIGateway(securityKey: securityKey, baseURL: fake.baseURL, timeout: timeout, logger: GatewayFixtures.quietLogger)
        do {
            try await body(fake, gateway)
        } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }

    static let recordedSale = "security_key=fake6457Thfj624V5r7WUwc5v6a68Zsd&type=sale&amount=12.34&currency=USD"
        + "&ccnumber=4111111111111111&ccexp=1230&cvv=123&orderid=INV-1001&order_description=Monthly+plan+%231"
        + "&first_name=Ada&last_name=Lovelace&zip=98004&dup_seconds=0"

    @Test func saleSendsExactlyTheRecordedRequest() async throws {
        try await withGateway { fake, gateway in
            let request = F.charge("run-42-step-7-try-1", reference: "INV-1001", amount: F.money(1_234),
                                   card: F.card(cvv: "123", zip: "98004", holder: "Ada Lovelace"),
                                   description: "Monthly plan #1")
            #expect(await gateway.sale(request).outcome == .approved)
            let sent = try #require(fake.core.requests.first)
            expectSameRequest(sent.body, Self.recordedSale)
            #expect(sent.contentType == "application/x-www-form-urlencoded")
            #expect(sent.path == "/api/transact.php")
        }
    }

    @Test func saleApprovesAndReportsTheGatewayFields() async throws {
        try await withGateway { fake, gateway in
            let result = await gateway.sale(F.charge("k", reference: "INV-1", card: F.card(cvv: "999", zip: "98004")))
            let recorded = try #require(fake.transactions(orderID: "INV-1").first)
            #expect(result.outcome == .approved)
            #expect(result.transactionID == recorded.transactionID)
            #expect(result.authCode == recorded.authCode)
            #expect(result.responseCode == "100")
            #expect(result.responseText == "SUCCESS")
            #expect(result.cvvResult == "M")
            #expect(result.avsResult == "N")
        }
    }

    @Test func aSaleWithoutCVVSendsNoCVVField() async throws {
        try await withGateway { fake, gateway in
            _ = await gateway.sale(F.charge("k", reference: "INV-2"))
            let sent = try #require(fake.core.requests.first).text
            #expect(!sent.contains("cvv="))
            #expect(sent.contains("&ccexp=1230&orderid=INV-2"))
        }
    }

    @Test func anAmountBelowOneDollarIsASoftDecline() async throws {
        try await withGateway { fake, gateway in
            let result = await gateway.sale(F.charge("k", reference: "INV-D", amount: F.money(50)))
            #expect(result.outcome == .declined(code: "generic_decline", category: .soft))
            #expect(result.responseCode == "200")
            #expect(result.transactionID == fake.transactions(orderID: "INV-D").first?.transactionID)
        }
    }

    @Test(arguments: [("202", GatewayResult.Outcome.declined(code: "insufficient_funds", category: .soft)),
                      ("203", .declined(code: "over_limit", category: .soft)),
                      ("264", .declined(code: "try_again_later", category: .soft)),
                      ("223", .declined(code: "expired_card", category: .hard)),
                      ("250", .declined(code: "pickup_card", category: .hard)),
                      ("253", .declined(code: "fraudulent", category: .hard)),
                      ("261", .declined(code: "stop_all_recurring", category: .hard)),
                      ("400", .inDoubt(reason: "processor_error")),
                      ("420", .inDoubt(reason: "communication_error")),
                      ("421", .inDoubt(reason: "issuer_communication_error")),
                      ("410", .error(code: "invalid_merchant_configuration", retryable: false)),
                      ("441", .declined(code: "invalid_transaction_information", category: .error))])
    func resultCodesMapToHardSoftInDoubtOrFinal(_ code: String, _ expected: GatewayResult.Outcome) async throws {
        try await withGateway { _, gateway in
            let amount = F.money(Int64(code)! * 100)
            let result = await gateway.sale(F.charge("k", reference: "INV-\(code)", amount: amount))
            #expect(result.outcome == expected)
            #expect(result.responseCode == code)
        }
    }

    @Test func theFakeRejectsAFailedLuhnCheckAndAnExpiryThatIsNotMMYY() async throws {
        try await withGateway { fake, _ in
            let rejected = try await Self.post("security_key=\(FakeNMIServer.securityKey)&type=sale&amount=5.00"
                + "&ccnumber=4111111111111112&ccexp=1230", to: fake.baseURL + "/api/transact.php")
            #expect(rejected.hasPrefix("response=3&responsetext=Invalid+Credit+Card+Number"))
            #expect(rejected.hasSuffix("response_code=300"))
            let badExpiry = try await Self.post("security_key=\(FakeNMIServer.securityKey)&type=sale&amount=5.00"
                + "&ccnumber=4111111111111111&ccexp=12%2F30", to: fake.baseURL + "/api/transact.php")
            #expect(badExpiry.contains("Invalid+Credit+Card+Expiration+Date"))
        }
    }

    @Test func aWrongSecurityKeyIsAPermanentAuthenticationErrorThatNamesNoSecret() async throws {
        try await withGateway(securityKey: "wrong-key-SECRET-77") { _, gateway in
            let result = await gateway.sale(F.charge("k", reference: "INV-AUTH"))
            #expect(result.outcome == .declined(code: "gateway_authentication_failed", category: .error))
            #expect(result.responseText?.hasPrefix("Authentication Failed") == true)
            expectAbsent("wrong-key-SECRET-77", in: F.allRenderings(of: result), "the result")
            #expect(await gateway.lookup(reference: "INV-AUTH", gatewayTransactionID: nil) == .unavailable("query_error"))
        }
    }

    /// With the merchant override allowed, `dup_seconds=0` turns NMI's check off and the runner's
    /// lookup-before-resend is what stops a second charge; without it NMI still answers
    /// "Duplicate transaction" and the adapter reconciles with the original.
    @Test func aResubmittedChargeIsReconciledNotChargedTwiceWhereNMIStillChecksDuplicates() async throws {
        try await withGateway { fake, gateway in
            fake.setAllowsDuplicateOverride(false)
            let first = await gateway.sale(F.charge("attempt-1", reference: "INV-DUP"))
            let second = await gateway.sale(F.charge("attempt-1-rerun", reference: "INV-DUP"))
            #expect(first.outcome == .approved)
            #expect(second.outcome == .approved)
            #expect(second.transactionID == first.transactionID)
            #expect(fake.transactions(orderID: "INV-DUP").count == 1)
            #expect(fake.receivedTypes == ["sale", "sale"])
        }
    }

    /// A duplicate answer the look-up cannot match to our order is still evidence that NMI holds a
    /// charge of this card and amount: in doubt (for review), never an error that a later run re-sends.
    @Test func aDuplicateAnswerThatNoLookUpMatchesIsInDoubtNotAnError() async throws {
        try await withGateway { fake, gateway in
            fake.setAllowsDuplicateOverride(false)
            let first = await gateway.sale(F.charge("attempt-1", reference: "INV-DUP-A"))
            let second = await gateway.sale(F.charge("attempt-2", reference: "INV-DUP-B"))
            #expect(first.outcome == .approved)
            #expect(second.outcome == .inDoubt(reason: "duplicate_transaction"))
            #expect(fake.transactions(orderID: "INV-DUP-B").isEmpty)
        }
    }

    @Test func aTimeoutAfterSendingIsInDoubtAndLookupSettlesIt() async throws {
        try await withGateway(timeout: .seconds(2)) { fake, gateway in
            fake.core.enqueue(.holdAfterProcessing)
            let result = await gateway.sale(F.charge("slow", reference: "INV-SLOW"))
            #expect(result.outcome == .inDoubt(reason: "timeout"))
            await fake.core.waitUntilHolding(1)
            fake.core.releaseHeldResponses()
            let charged = try #require(fake.transactions(orderID: "INV-SLOW").first)
            guard case let .found(found) = await gateway.lookup(reference: "INV-SLOW", gatewayTransactionID: nil) else {
                Issue.record("the charge whose answer was lost was not found")
                return
            }
            #expect(found.outcome == .approved)
            #expect(found.transactionID == charged.transactionID)
            #expect(found.authCode == charged.authCode)
            #expect(fake.receivedTypes == ["sale"])
        }
    }

    @Test func aBodyThatStallsAfterTheHeadIsInDoubtNotAHang() async throws {
        try await withGateway(timeout: .seconds(2)) { fake, gateway in
            fake.core.enqueue(.stallBodyAfterProcessing)
            let result = await gateway.sale(F.charge("stall", reference: "INV-STALL"))
            #expect(result.outcome == .inDoubt(reason: "timeout"))
            await fake.core.waitUntilHolding(1)
            fake.core.releaseHeldResponses()
            #expect(fake.transactions(orderID: "INV-STALL").count == 1)
        }
    }

    @Test func connectionRefusedIsARetryableError() async throws {
        let refusing = RefusingPort()
        let url = refusing.baseURL
        let gateway = NMIGateway(securityKey: "x", baseURL: url, timeout: .seconds(20), logger: GatewayFixtures.quietLogger)
        #expect(await gateway.sale(F.charge("k", reference: "INV-DOWN")).outcome
            == .error(code: "gateway_unreachable", retryable: true))
        let client = makeNoRetryHTTPClient()
        let noRetry = NMIGateway(securityKey: "x", baseURL: url, httpClient: client, logger: GatewayFixtures.quietLogger)
        let result = await noRetry.sale(F.charge("k", reference: "INV-DOWN"))
        try await client.shutdown()
        #expect(result.outcome == .error(code: "gateway_unreachable", retryable: true))
        withExtendedLifetime(refusing) {}
    }

    @Test func aGarbageReplyIsInDoubt() async throws {
        try await withGateway { fake, gateway in
            fake.core.enqueue(.garbageAfterProcessing)
            #expect(await gateway.sale(F.charge("k", reference: "INV-G")).outcome == .inDoubt(reason: "unreadable_response"))
            #expect(fake.transactions(orderID: "INV-G").count == 1)
            fake.core.enqueue(.garbage, for: .lookup)
            #expect(await gateway.lookup(reference: "INV-G", gatewayTransactionID: nil) == .unavailable("unreadable_response"))
        }
    }

    @Test func aServerErrorIsInDoubtAndLookupSeesNothingCharged() async throws {
        try await withGateway { fake, gateway in
            fake.core.enqueue(.status(502))
            #expect(await gateway.sale(F.charge("k", reference: "INV-502")).outcome == .inDoubt(reason: "http_502"))
            #expect(await gateway.lookup(reference: "INV-502", gatewayTransactionID: nil) == .notFound)
        }
    }

    @Test(arguments: [(404, GatewayResult.Outcome.error(code: "http_404", retryable: false)),
                      (429, .error(code: "http_429", retryable: true)),
                      (500, .inDoubt(reason: "http_500")),
                      (503, .error(code: "http_503", retryable: true))])
    func otherHTTPStatusesSayWhetherTheChargeMayHaveHappened(_ status: Int, _ expected: GatewayResult.Outcome) async throws {
        try await withGateway { fake, gateway in
            fake.core.enqueue(.status(status))
            #expect(await gateway.sale(F.charge("k", reference: "INV-\(status)")).outcome == expected)
        }
    }

    @Test func authorizeCaptureVoidAndRefund() async throws {
        try await withGateway { fake, gateway in
            let auth = await gateway.authorize(F.charge("a", reference: "INV-A", amount: F.money(5_000)))
            #expect(auth.outcome == .approved)
            let noAmount = await gateway.capture(F.followUp("c0", reference: "INV-A", transactionID: auth.transactionID))
            #expect(noAmount.outcome == .declined(code: "amount_required", category: .error))
            let tooMuch = await gateway.capture(F.followUp("c1", reference: "INV-A", transactionID: auth.transactionID,
                                                           amount: F.money(5_001)))
            #expect(tooMuch.outcome == .declined(code: "gateway_rejected", category: .error))
            let capture = await gateway.capture(F.followUp("c2", reference: "INV-A", transactionID: auth.transactionID,
                                                           amount: F.money(4_000)))
            #expect(capture.outcome == .approved)
            #expect(fake.transaction(auth.transactionID ?? "")?.condition == "pendingsettlement")
            fake.settleAll()
            let refund = await gateway.refund(F.followUp("r1", reference: "RF-1", transactionID: auth.transactionID,
                                                         amount: F.money(1_500)))
            #expect(refund.outcome == .approved)
            #expect(refund.transactionID != auth.transactionID)
            let over = await gateway.refund(F.followUp("r2", reference: "RF-2", transactionID: auth.transactionID,
                                                       amount: F.money(2_501)))
            #expect(over.outcome == .declined(code: "gateway_rejected", category: .error))
            let rest = await gateway.refund(F.followUp("r3", reference: "RF-3", transactionID: auth.transactionID))
            #expect(rest.outcome == .approved)
            #expect(fake.transaction(rest.transactionID ?? "")?.amount == 25_000)
            let other = await gateway.sale(F.charge("s", reference: "INV-V"))
            let void = await gateway.void(F.followUp("v", reference: "INV-V", transactionID: other.transactionID))
            #expect(void.outcome == .approved)
            #expect(fake.transaction(other.transactionID ?? "")?.condition == "canceled")
            #expect(fake.receivedTypes == ["auth", "capture", "capture", "refund", "refund", "refund", "sale", "void"])
        }
    }

    @Test func verifyUsesValidateWithoutAnAmount() async throws {
        try await withGateway { fake, gateway in
            let result = await gateway.verify(F.charge("v", reference: "VER-1", amount: F.money(0), card: F.card(cvv: "999")))
            #expect(result.outcome == .approved)
            #expect(result.cvvResult == "M")
            let sent = try #require(fake.core.requests.first).text
            #expect(sent.contains("&type=validate&ccnumber="))
            #expect(!sent.contains("amount="))
        }
    }

    /// Amounts go out in NMI's documented `x.xx`: a 0-decimal currency gets `.00`.
    @Test(arguments: [("JPY", Int64(1_000), "1000.00"), ("USD", Int64(1_234), "12.34")])
    func amountsAreSentAsDocumented(_ currency: String, _ minorUnits: Int64, _ wire: String) async throws {
        try await withGateway { fake, gateway in
            let result = await gateway.sale(F.charge("k", reference: "INV-\(currency)", amount: F.money(minorUnits, currency)))
            #expect(result.outcome == .approved)
            let sent = try #require(fake.core.requests.first).text
            #expect(sent.contains("&amount=\(wire)&currency=\(currency)&"))
        }
    }

    /// A 3-decimal currency cannot be written as `x.xx`: refused, never sent or rounded; the fake
    /// itself refuses a third decimal as NMI would.
    @Test func threeDecimalCurrenciesAreRefusedUnsentAndTheFakeRefusesThem() async throws {
        try await withGateway { fake, gateway in
            let sale = await gateway.sale(F.charge("k", reference: "INV-KWD", amount: F.money(1_250, "KWD")))
            #expect(sale.outcome == .error(code: "unsupported_currency", retryable: false))
            #expect(fake.core.requests.isEmpty)
            let reply = try await Self.post("security_key=\(FakeNMIServer.securityKey)&type=sale&amount=1.250&currency=KWD"
                + "&ccnumber=4111111111111111&ccexp=1230", to: fake.baseURL + NMIGateway.transactPath)
            #expect(reply.hasPrefix("response=3&responsetext=Invalid+amount"))
        }
    }

    @Test func lookupFindsByOrderIDOrTransactionIDAndPrefersTheApproval() async throws {
        try await withGateway { fake, gateway in
            let declined = await gateway.sale(F.charge("a", reference: "INV-L", amount: F.money(20)))
            let approved = await gateway.sale(F.charge("b", reference: "INV-L", amount: F.money(1_500)))
            #expect(declined.outcome == .declined(code: "generic_decline", category: .soft))
            guard case let .found(found) = await gateway.lookup(reference: "INV-L", gatewayTransactionID: nil) else {
                Issue.record("the charge was not found by order id")
                return
            }
            #expect(found.outcome == .approved)
            #expect(found.transactionID == approved.transactionID)
            guard case let .found(byID) = await gateway.lookup(reference: "ignored", gatewayTransactionID: declined.transactionID)
            else {
                Issue.record("the decline was not found by id")
                return
            }
            #expect(byID.outcome == .declined(code: "generic_decline", category: .soft))
            #expect(await gateway.lookup(reference: "INV-NONE", gatewayTransactionID: nil) == .notFound)
            let query = try #require(fake.core.requests.last)
            #expect(query.path == "/api/query.php")
            #expect(query.text == "security_key=\(FakeNMIServer.securityKey)&order_id=INV-NONE")
        }
    }

    @Test func theBaseURLAcceptsTheFullTransactURL() {
        let gateway = NMIGateway(securityKey: "k", baseURL: "https://secure.example.test/api/transact.php")
        #expect(gateway.baseURL == "https://secure.example.test")
    }

    @Test func theSecurityKeyNeverAppearsInDescriptions() {
        let gateway = NMIGateway(securityKey: "NMI-KEY-SECRET-9", baseURL: "https://secure.example.test")
        expectAbsent("NMI-KEY-SECRET-9", in: F.allRenderings(of: gateway), "the adapter's description")
    }

    /// Posts a raw form body to the fake.
    static func post(_ form: String, to url: String) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }
}
