import AsyncHTTPClient
@testable import GatewayFakes
import NIOCore
import NIOHTTP1
import Payments
import Testing
import Vault

/// Authorize.Net charges against the fake Authorize.Net server, over real HTTP on loopback.
@Suite struct AuthorizeNetGatewayTests {
    typealias F = GatewayFixtures

    func withGateway(timeout: Duration = .seconds(30), transactionKey: String = FakeAuthorizeNetServer.transactionKey,
                     _ body: (FakeAuthorizeNetServer, AuthorizeNetGateway) async throws -> Void) async throws {
        try await withAuthorizeNetFake(timeout: timeout, transactionKey: transactionKey, body)
    }

    static let recordedSale = #"{"createTransactionRequest":{"merchantAuthentication":{"name":"fakeLogin9Z","#
        + #""transactionKey":"fAkEtRaNsKeY1234"},"refId":"run-42-step-7-try-1","transactionRequest":{"#
        + #""transactionType":"authCaptureTransaction","amount":"12.34","currencyCode":"USD","payment":{"creditCard":{"#
        + #""cardNumber":"4111111111111111","expirationDate":"2030-12","cardCode":"123"}},"order":{"invoiceNumber":"#
        + #""INV-1001","description":"Monthly plan"},"billTo":{"firstName":"Ada","lastName":"Lovelace","zip":"98004"},"#
        + #""transactionSettings":{"setting":[{"settingName":"duplicateWindow","settingValue":"28800"}]}}}}"#

    @Test func saleSendsExactlyTheRecordedRequest() async throws {
        try await withGateway { fake, gateway in
            let request = F.charge("run-42-step-7-try-1", reference: "INV-1001", amount: F.money(1_234),
                                   card: F.card(cvv: "123", zip: "98004", holder: "Ada Lovelace"), description: "Monthly plan")
            let result = await gateway.sale(request)
            #expect(result.outcome == .approved)
            let sent = try #require(fake.core.requests.first)
            expectSameRequest(sent.body, Self.recordedSale)
            #expect(sent.contentType == "application/json")
        }
    }

    @Test func saleApprovesAndReportsTheGatewayFields() async throws {
        try await withGateway { fake, gateway in
            let result = await gateway.sale(F.charge("k1", reference: "INV-1", card: F.card(cvv: "123", zip: "98004")))
            let recorded = try #require(fake.transactions(invoiceNumber: "INV-1").first)
            #expect(result.outcome == .approved)
            #expect(result.transactionID == recorded.transId)
            #expect(result.authCode == recorded.authCode)
            #expect(result.responseCode == "1")
            #expect(result.responseText == "This transaction has been approved.")
            #expect(result.avsResult == "Y")
            #expect(result.cvvResult == "M")
        }
    }

    @Test func aSaleWithoutCVVSendsNoCardCode() async throws {
        try await withGateway { fake, gateway in
            _ = await gateway.sale(F.charge("k1", reference: "INV-2"))
            let sent = try #require(fake.core.requests.first).text
            #expect(!sent.contains("cardCode"))
            #expect(sent.contains(#""expirationDate":"2030-12"}"#))
        }
    }

    @Test(arguments: [true, false])
    func repliesAreReadWithOrWithoutAByteOrderMark(_ byteOrderMark: Bool) async throws {
        try await withGateway { fake, gateway in
            fake.setEmitsByteOrderMark(byteOrderMark)
            #expect(await gateway.sale(F.charge("k", reference: "INV-BOM")).outcome == .approved)
            #expect(await gateway.lookup(reference: "INV-BOM", gatewayTransactionID: nil) != .notFound)
        }
    }

    @Test func declineZip46282IsASoftGenericDecline() async throws {
        try await withGateway { _, gateway in
            let result = await gateway.sale(F.charge("k", reference: "INV-D", card: F.card(zip: "46282")))
            #expect(result.outcome == .declined(code: "generic_decline", category: .soft))
            #expect(result.transactionID != nil)
            #expect(result.responseCode == "2")
        }
    }

    @Test(arguments: [(4, "pickup_card"), (27, "avs_mismatch"), (44, "invalid_cvv"), (65, "invalid_cvv"),
                      (8, "expired_card")])
    func reasonCodeTriggersAreHardDeclines(_ reason: Int, _ code: String) async throws {
        try await withGateway { _, gateway in
            let result = await gateway.sale(F.charge("k", reference: "INV-H", amount: F.money(Int64(reason) * 100),
                                                     card: F.card("4222222222222")))
            #expect(result.outcome == .declined(code: code, category: .hard))
            #expect(result.responseCode == String(reason))
        }
    }

    @Test func processorTroubleIsARetryableErrorAndChargesNothing() async throws {
        try await withGateway { fake, gateway in
            let result = await gateway.sale(F.charge("k", reference: "INV-E", amount: F.money(1_900),
                                                     card: F.card("4222222222222")))
            #expect(result.outcome == .error(code: "processing_error", retryable: true))
            #expect(fake.transactions(invoiceNumber: "INV-E").isEmpty)
        }
    }

    @Test func heldForReviewIsInDoubtAndStaysSoOnLookup() async throws {
        try await withGateway { _, gateway in
            let result = await gateway.sale(F.charge("k", reference: "INV-R", amount: F.money(25_200),
                                                     card: F.card("4222222222222")))
            #expect(result.outcome == .inDoubt(reason: "held_for_review"))
            guard case let .found(found) = await gateway.lookup(reference: "INV-R", gatewayTransactionID: nil) else {
                Issue.record("the held transaction was not found")
                return
            }
            #expect(found.outcome == .inDoubt(reason: "held_for_review: FDSPendingReview"))
            #expect(found.transactionID == result.transactionID)
        }
    }

    @Test func aResubmittedChargeIsReconciledNotChargedTwice() async throws {
        try await withGateway { fake, gateway in
            let first = await gateway.sale(F.charge("attempt-1", reference: "INV-DUP"))
            let second = await gateway.sale(F.charge("attempt-1-rerun", reference: "INV-DUP"))
            #expect(first.outcome == .approved)
            #expect(second.outcome == .approved)
            #expect(second.transactionID == first.transactionID)
            #expect(second.authCode == first.authCode)
            #expect(fake.transactions(invoiceNumber: "INV-DUP").count == 1)
            #expect(fake.receivedTransactionTypes == ["authCaptureTransaction", "authCaptureTransaction"])
        }
    }

    @Test func aResubmittedDeclineStaysDeclined() async throws {
        try await withGateway { fake, gateway in
            let card = F.card(zip: "46282")
            let first = await gateway.sale(F.charge("a", reference: "INV-DD", card: card))
            let second = await gateway.sale(F.charge("b", reference: "INV-DD", card: card))
            #expect(second.outcome == .declined(code: "generic_decline", category: .soft))
            #expect(second.transactionID == first.transactionID)
            #expect(fake.transactions(invoiceNumber: "INV-DD").count == 1)
        }
    }

    @Test func aTimeoutAfterSendingIsInDoubtAndLookupSettlesIt() async throws {
        try await withGateway(timeout: .seconds(2)) { fake, gateway in
            fake.core.enqueue(.holdAfterProcessing)
            let result = await gateway.sale(F.charge("slow", reference: "INV-SLOW"))
            #expect(result.outcome == .inDoubt(reason: "timeout"))
            await fake.core.waitUntilHolding(1)
            fake.core.releaseHeldResponses()
            let charged = try #require(fake.transactions(invoiceNumber: "INV-SLOW").first)
            guard case let .found(found) = await gateway.lookup(reference: "INV-SLOW", gatewayTransactionID: nil) else {
                Issue.record("the charge whose answer was lost was not found")
                return
            }
            #expect(found.outcome == .approved)
            #expect(found.transactionID == charged.transId)
            #expect(found.authCode == charged.authCode)
            #expect(fake.receivedTransactionTypes.count == 1)
        }
    }

    @Test func aBodyThatStallsAfterTheHeadIsInDoubtNotAHang() async throws {
        try await withGateway(timeout: .seconds(2)) { fake, gateway in
            fake.core.enqueue(.stallBodyAfterProcessing)
            let result = await gateway.authorize(F.charge("stall", reference: "INV-STALL"))
            #expect(result.outcome == .inDoubt(reason: "timeout"))
            await fake.core.waitUntilHolding(1)
            fake.core.releaseHeldResponses()
            #expect(fake.transactions(invoiceNumber: "INV-STALL").count == 1)
        }
    }

    @Test func connectionRefusedIsARetryableError() async throws {
        let refusing = RefusingPort()
        let url = refusing.baseURL + "/xml/v1/request.api"
        let gateway = AuthorizeNetGateway(apiLoginID: "x", transactionKey: "y", endpoint: url, timeout: .seconds(20), logger: GatewayFixtures.quietLogger)
        let result = await gateway.sale(F.charge("k", reference: "INV-DOWN"))
        #expect(result.outcome == .error(code: "gateway_unreachable", retryable: true))
        #expect(await gateway.lookup(reference: "INV-DOWN", gatewayTransactionID: nil) == .unavailable("connection_failed"))
        withExtendedLifetime(refusing) {}
    }

    @Test func connectionRefusedWithoutConnectRetriesIsARetryableError() async throws {
        let refusing = RefusingPort()
        let url = refusing.baseURL + "/xml/v1/request.api"
        let client = makeNoRetryHTTPClient()
        let gateway = AuthorizeNetGateway(apiLoginID: "x", transactionKey: "y", endpoint: url, httpClient: client, logger: GatewayFixtures.quietLogger)
        let result = await gateway.sale(F.charge("k", reference: "INV-DOWN"))
        try await client.shutdown()
        #expect(result.outcome == .error(code: "gateway_unreachable", retryable: true))
        withExtendedLifetime(refusing) {}
    }

    @Test func aGarbageReplyIsInDoubt() async throws {
        try await withGateway { fake, gateway in
            fake.core.enqueue(.garbageAfterProcessing)
            #expect(await gateway.sale(F.charge("k", reference: "INV-G")).outcome == .inDoubt(reason: "unreadable_response"))
            #expect(fake.transactions(invoiceNumber: "INV-G").count == 1)
        }
    }

    @Test func aServerErrorIsInDoubtAndLookupSeesNothingCharged() async throws {
        try await withGateway { fake, gateway in
            fake.core.enqueue(.status(500))
            #expect(await gateway.sale(F.charge("k", reference: "INV-500")).outcome == .inDoubt(reason: "http_500"))
            #expect(await gateway.lookup(reference: "INV-500", gatewayTransactionID: nil) == .notFound)
        }
    }

    @Test func lookupWhileTheReportingAPIFailsIsUnavailable() async throws {
        try await withGateway { fake, gateway in
            fake.core.enqueue(.status(500), for: .lookup)
            #expect(await gateway.lookup(reference: "INV-X", gatewayTransactionID: nil) == .unavailable("http_500"))
            fake.core.enqueue(.garbage, for: .lookup)
            #expect(await gateway.lookup(reference: "INV-X", gatewayTransactionID: nil) == .unavailable("unreadable_response"))
        }
    }

    @Test func wrongCredentialsAreAPermanentAuthenticationErrorThatNamesNoSecret() async throws {
        try await withGateway(transactionKey: "wRoNgKeY99999999") { _, gateway in
            let result = await gateway.sale(F.charge("k", reference: "INV-AUTH"))
            #expect(result.outcome == .declined(code: "gateway_authentication_failed", category: .error))
            #expect(result.responseCode == "E00007")
            expectAbsent("wRoNgKeY99999999", in: F.allRenderings(of: result), "the result")
            #expect(await gateway.lookup(reference: "INV-AUTH", gatewayTransactionID: nil) == .unavailable("E00007"))
        }
    }

    @Test func theFakeRejectsElementsOutOfSchemaOrder() async throws {
        try await withGateway { fake, _ in
            let outOfOrder = #"{"createTransactionRequest":{"merchantAuthentication":{"name":"fakeLogin9Z","#
                + #""transactionKey":"fAkEtRaNsKeY1234"},"transactionRequest":{"amount":"5.00","#
                + #""transactionType":"authCaptureTransaction"}}}"#
            let reply = try await Self.post(outOfOrder, to: fake.url)
            #expect(reply.contains("E00003"))
            #expect(reply.contains("invalid child element 'transactionType'"))
        }
    }

    @Test func theFakeRejectsAnExpiryInAnotherFormatAndMissingCredentials() async throws {
        try await withGateway { fake, _ in
            let badExpiry = #"{"createTransactionRequest":{"merchantAuthentication":{"name":"fakeLogin9Z","#
                + #""transactionKey":"fAkEtRaNsKeY1234"},"transactionRequest":{"transactionType":"authCaptureTransaction","#
                + #""amount":"5.00","payment":{"creditCard":{"cardNumber":"4111111111111111","expirationDate":"12/30"}}}}}"#
            let expiryReply = try await Self.post(badExpiry, to: fake.url)
            #expect(expiryReply.contains(#""errorCode":"7""#))
            let anonymous = #"{"createTransactionRequest":{"merchantAuthentication":{"name":"fakeLogin9Z"},"#
                + #""transactionRequest":{"transactionType":"voidTransaction","refTransId":"1"}}}"#
            #expect(try await Self.post(anonymous, to: fake.url).contains("E00007"))
        }
    }

    @Test func aReferenceLongerThanAnInvoiceNumberIsRefusedBeforeSending() async throws {
        try await withGateway { fake, gateway in
            let result = await gateway.sale(F.charge("k", reference: String(repeating: "R", count: 21)))
            #expect(result.outcome == .declined(code: "invalid_reference", category: .error))
            #expect(fake.core.requests.isEmpty)
        }
    }

    @Test func longIdempotencyKeysBecomeA16DigitRefID() async throws {
        try await withGateway { fake, gateway in
            _ = await gateway.sale(F.charge(String(repeating: "k", count: 64), reference: "INV-REF"))
            let sent = try #require(fake.core.requests.first).text
            let refID = try #require(sent.split(separator: "\"refId\":\"").last?.split(separator: "\"").first)
            #expect(refID.count == 16)
        }
    }

    @Test func credentialsNeverAppearInDescriptions() async throws {
        let gateway = AuthorizeNetGateway(apiLoginID: "LOGIN-SECRET-1", transactionKey: "KEY-SECRET-22",
                                          endpoint: "https://user:pw@example.test/xml/v1/request.api?token=abc")
        let text = F.allRenderings(of: gateway)
        for secret in ["LOGIN-SECRET-1", "KEY-SECRET-22", "pw@", "token=abc"] {
            expectAbsent(secret, in: text, "the adapter's description")
        }
        #expect(text.contains("example.test"))
    }

    /// Posts raw JSON to the fake, as a client that ignores the schema would.
    static func post(_ json: String, to url: String) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }
}

/// Runs `body` with a fresh fake Authorize.Net server and an adapter pointed at it.
func withAuthorizeNetFake(timeout: Duration = .seconds(30), transactionKey: String = FakeAuthorizeNetServer.transactionKey,
                          _ body: (FakeAuthorizeNetServer, AuthorizeNetGateway) async throws -> Void) async throws {
    let fake = try await FakeAuthorizeNetServer.start()
    let gateway = AuthorizeNetGateway(apiLoginID: FakeAuthorizeNetServer.apiLoginID, transactionKey: transactionKey,
                                      endpoint: fake.url, timeout: timeout, logger: GatewayFixtures.quietLogger)
    do {
        try await body(fake, gateway)
    } catch {
        await fake.stop()
        throw error
    }
    await fake.stop()
}
