import AsyncHTTPClient
import Foundation
@testable import GatewayFakes
import NIOCore
import NIOHTTP1
import Payments
import Testing
import Vault

private typealias F = GatewayFixtures

/// Card-on-file flags on the first and the recurring charge, against each
/// gateway's fake, and cards a gateway cannot take never sent.
struct StoredCredentialGatewayTests {
    // MARK: Authorize.Net

    @Test func authorizeNetFirstUseStartsTheSeriesAndReturnsTheNetworkTransactionID() async throws {
        try await withAuthorizeNetFake { fake, gateway in
            var request = F.charge("first", reference: "REG-1")
            request.storedCredential = .initial
            let result = await gateway.sale(request)
            #expect(result.outcome == .approved)
            let recorded = try #require(fake.transaction(result.transactionID ?? ""))
            #expect(recorded.processingOptions == ["isFirstRecurringPayment"])
            #expect(recorded.originalNetworkTransId == nil)
            #expect(result.networkTransactionID != nil)
            #expect(result.networkTransactionID == recorded.networkTransId)
            // XSD order: transactionSettings, then processingOptions; no subsequentAuthInformation.
            let sent = try #require(fake.core.requests.first).text
            #expect(sent.contains(#""settingValue":"28800"}]},"processingOptions":{"isFirstRecurringPayment":true}}"#))
            #expect(!sent.contains("subsequentAuthInformation"))
        }
    }

    @Test func authorizeNetRecurringChargeIsASubsequentAuthWithTheOriginalID() async throws {
        try await withAuthorizeNetFake { fake, gateway in
            var first = F.charge("first", reference: "REG-2")
            first.storedCredential = .initial
            let original = try #require(await gateway.sale(first).networkTransactionID)
            var recurring = F.charge("next", reference: "STEP-2", amount: F.money(2_000))
            recurring.storedCredential = .recurring(originalNetworkTransactionID: original)
            let result = await gateway.sale(recurring)
            #expect(result.outcome == .approved)
            let recorded = try #require(fake.transaction(result.transactionID ?? ""))
            #expect(recorded.processingOptions == ["isSubsequentAuth"])
            #expect(recorded.originalNetworkTransId == original)
            let sent = try #require(fake.core.requests.last).text
            #expect(sent.contains(#"{"settingName":"recurringBilling","settingValue":"true"}]},"processingOptions":{"isSubsequentAuth":true},"#
                + #""subsequentAuthInformation":{"originalNetworkTransId":""# + original + #""}}"#))
        }
    }

    @Test func authorizeNetRecurringChargeWithoutAnOriginalIsTheSeriesFirstPayment() async throws {
        try await withAuthorizeNetFake { fake, gateway in
            var recurring = F.charge("next", reference: "STEP-3")
            recurring.storedCredential = .recurring(originalNetworkTransactionID: nil)
            let result = await gateway.sale(recurring)
            #expect(result.outcome == .approved)
            #expect(fake.transaction(result.transactionID ?? "")?.processingOptions == ["isFirstRecurringPayment"])
            #expect(result.networkTransactionID != nil)
        }
    }

    @Test func authorizeNetFakeRefusesStoredCredentialFieldsTheSchemaRefuses() async throws {
        try await withAuthorizeNetFake { fake, _ in
            func request(_ tail: String) -> String {
                #"{"createTransactionRequest":{"merchantAuthentication":{"name":"\#(FakeAuthorizeNetServer.apiLoginID)","transactionKey":"\#(FakeAuthorizeNetServer.transactionKey)"},"#
                    + #""transactionRequest":{"transactionType":"authCaptureTransaction","amount":"5.00","payment":{"creditCard":{"cardNumber":"4111111111111111","expirationDate":"2030-12"}},"#
                    + tail + "}}}"
            }
            let outOfOrder = try await Self.post(
                request(#""subsequentAuthInformation":{"originalNetworkTransId":"NTI1"},"processingOptions":{"isSubsequentAuth":true}"#), to: fake.url)
            #expect(outOfOrder.contains("E00003"))
            let badReason = try await Self.post(
                request(#""processingOptions":{"isSubsequentAuth":true},"subsequentAuthInformation":{"originalNetworkTransId":"NTI1","reason":"recurring"}"#),
                to: fake.url)
            #expect(badReason.contains("E00003"))
            let notBoolean = try await Self.post(request(#""processingOptions":{"isStoredCredentials":"yes"}"#), to: fake.url)
            #expect(notBoolean.contains("E00003"))
            let unknownOriginal = try await Self.post(
                request(#""processingOptions":{"isSubsequentAuth":true},"subsequentAuthInformation":{"originalNetworkTransId":"NTI999"}"#), to: fake.url)
            #expect(unknownOriginal.contains(#""responseCode":"2""#))
        }
    }

    // MARK: NMI

    @Test func nmiFirstUseIsCustomerInitiatedAndStoresTheCredential() async throws {
        try await withNMIFake { fake, gateway in
            var request = F.charge("first", reference: "REG-1")
            request.storedCredential = .initial
            let result = await gateway.sale(request)
            #expect(result.outcome == .approved)
            #expect(result.networkTransactionID == result.transactionID)
            let recorded = try #require(fake.transaction(result.transactionID ?? ""))
            #expect(recorded.storedCredential == ["initiated_by": "customer", "stored_credential_indicator": "stored"])
            #expect(try #require(fake.core.requests.first).text.hasSuffix("&initiated_by=customer&stored_credential_indicator=stored"))
        }
    }

    @Test func nmiRecurringChargeIsMerchantInitiatedWithTheInitialTransactionID() async throws {
        try await withNMIFake { fake, gateway in
            var first = F.charge("first", reference: "REG-2")
            first.storedCredential = .initial
            let initial = try #require(await gateway.sale(first).networkTransactionID)
            var recurring = F.charge("next", reference: "STEP-2", amount: F.money(2_000))
            recurring.storedCredential = .recurring(originalNetworkTransactionID: initial)
            let result = await gateway.sale(recurring)
            #expect(result.outcome == .approved)
            let recorded = try #require(fake.transaction(result.transactionID ?? ""))
            #expect(recorded.storedCredential == ["billing_method": "recurring", "initiated_by": "merchant",
                                                  "stored_credential_indicator": "used", "initial_transaction_id": initial])
        }
    }

    @Test func nmiFakeRefusesAnInitialTransactionItNeverApproved() async throws {
        try await withNMIFake { fake, gateway in
            var recurring = F.charge("next", reference: "STEP-3")
            recurring.storedCredential = .recurring(originalNetworkTransactionID: "123")
            let result = await gateway.sale(recurring)
            guard case .declined(_, .error) = result.outcome else {
                Issue.record("expected a permanent error (NMI 300), got \(result.outcome)")
                return
            }
            #expect(result.responseText?.contains("initial_transaction_id") == true)
            #expect(fake.transaction("123") == nil)
        }
    }

    // MARK: Sandbox

    @Test func sandboxRecordsTheFlagsAndAnswersANetworkTransactionID() async throws {
        let sandbox = SandboxGateway()
        var first = F.charge("first", reference: "REG-1", card: F.card("4242424242424242"))
        first.storedCredential = .initial
        let initial = await sandbox.sale(first)
        let original = try #require(initial.networkTransactionID)
        var recurring = F.charge("next", reference: "STEP-1", card: F.card("4242424242424242"))
        recurring.storedCredential = .recurring(originalNetworkTransactionID: original)
        let next = await sandbox.sale(recurring)
        #expect(try await sandbox.transaction(id: initial.transactionID ?? "")?.storedCredential == .initial)
        #expect(try await sandbox.transaction(id: next.transactionID ?? "")?.storedCredential == .recurring(originalNetworkTransactionID: original))
        #expect(NetworkTransactionID.masked(original).hasPrefix("***********"))
        #expect(!"\(recurring.storedCredential!)".contains(original))
    }

    // MARK: Pre-checks: cards a gateway cannot take

    static let longCards = ["60110000000000001", "601100000000000004", "6011000000000000001"]

    @Test(arguments: longCards)
    func cardsLongerThanSixteenDigitsNeverReachAuthorizeNet(_ digits: String) async throws {
        try await withAuthorizeNetFake { fake, gateway in
            let card = F.card(digits)
            let expected = GatewayResult.Outcome.declined(code: "unsupported_card", category: .hard)
            #expect(await gateway.sale(F.charge("s", reference: "INV-LONG", card: card)).outcome == expected)
            #expect(await gateway.authorize(F.charge("a", reference: "INV-LONG", card: card)).outcome == expected)
            #expect(await gateway.verify(F.charge("v", reference: "VER-LONG", amount: F.money(0), card: card)).outcome == expected)
            #expect(fake.core.requests.isEmpty)
        }
    }

    @Test func sixteenDigitCardsAndLongCardsOnNMIAreSent() async throws {
        try await withAuthorizeNetFake { fake, gateway in
            #expect(await gateway.sale(F.charge("s", reference: "INV-16")).outcome == .approved)
            #expect(fake.core.requests.count == 1)
        }
        try await withNMIFake { fake, gateway in
            let result = await gateway.sale(F.charge("s", reference: "INV-19", card: F.card(Self.longCards[2])))
            #expect(result.outcome == .approved)
            #expect(fake.core.requests.count == 1)
        }
    }

    @Test func rulesRefuseWhatEachGatewayCannotTake() throws {
        let usd = try Currency(code: "USD"), jpy = try Currency(code: "JPY"), kwd = try Currency(code: "KWD")
        let long = F.pan(Self.longCards[2])
        #expect(AuthorizeNetGateway.preChecks.refusal(cardNumber: long)?.code == "unsupported_card")
        #expect(AuthorizeNetGateway.preChecks.refusal(cardNumber: F.pan("4111111111111111")) == nil)
        #expect(NMIGateway.preChecks.refusal(cardNumber: long) == nil)
        #expect(GatewayPreChecks().refusal(cardNumber: long) == nil)
        for checks in [AuthorizeNetGateway.preChecks, NMIGateway.preChecks] {
            #expect(checks.refusal(currency: usd) == nil)
            #expect(checks.refusal(currency: jpy) == nil)
            #expect(checks.refusal(currency: kwd)?.code == "unsupported_currency")
        }
        #expect(GatewayPreChecks().refusal(currency: kwd) == nil)
        #expect(AuthorizeNetGateway.preChecks.refusal(reference: String(repeating: "A", count: 21))?.code == "invalid_reference")
        #expect(AuthorizeNetGateway.preChecks.refusal(reference: String(repeating: "A", count: 20)) == nil)
        let alphanumeric = GatewayPreChecks(cardNumberLengths: 13...16, maximumReferenceLength: 12, referenceIsAlphanumeric: true,
                                        amountFractionDigits: 2)
        #expect(alphanumeric.refusal(reference: "AB12") == nil)
        #expect(alphanumeric.refusal(reference: "AB-12")?.code == "invalid_reference")
        #expect(NMIGateway.preChecks.amountString(Money(minorUnits: 1_000, currency: jpy)) == "1000.00")
        #expect(NMIGateway.preChecks.amountString(Money(minorUnits: 7, currency: usd)) == "0.07")
        #expect(GatewayPreChecks().amountString(Money(minorUnits: 1_250, currency: kwd)) == "1.250")
    }

    // MARK: Support

    func withNMIFake(_ body: (FakeNMIServer, NMIGateway) async throws -> Void) async throws {
        let fake = try await FakeNMIServer.start()
        let gateway = NMIGateway(securityKey: FakeNMIServer.securityKey, baseURL: fake.baseURL, logger: GatewayFixtures.quietLogger)
        do {
            try await body(fake, gateway)
        } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }

    static func post(_ json: String, to url: String) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }
}
