@testable import GatewayFakes
@testable import Payments
import Testing
import Vault
@testable import VaultSQLite

/// Permanent errors, rate limits and the fakes behaving as the real
/// gateways (docs/GATEWAYS.md cites the documents).
@Suite struct GatewayErrorClassTests {
    typealias F = GatewayFixtures


    // MARK: - Permanent errors

    @Test func nmiRejectedByTheGatewayIsAPermanentErrorWithTheGatewaysText() async throws {
        try await F.withNMI { _, gateway in
            let result = await gateway.sale(F.charge("k", reference: "INV-441", amount: F.money(44_100)))
            #expect(result.outcome == .declined(code: "invalid_transaction_information", category: .error))
            #expect(result.responseText == "Invalid transaction information")
            #expect(result.errorCode == "invalid_transaction_information")
        }
    }

    @Test func nmiAuthenticationFailureIsAPermanentAuthenticationError() {
        #expect(NMICodes.outcome(response: "3", responseCode: "300", responseText: "Authentication Failed REFID:1")
            == .declined(code: "gateway_authentication_failed", category: .error))
        #expect(NMICodes.outcome(response: "3", responseCode: "300", responseText: "Invalid Credit Card Number REFID:1")
            == .declined(code: "gateway_rejected", category: .error))
        #expect(NMICodes.outcome(response: "3", responseCode: "410", responseText: "Invalid merchant configuration")
            == .error(code: "invalid_merchant_configuration", retryable: false))
    }

    @Test func authorizeNetSchemaViolationIsE00003AndAPermanentError() async throws {
        try await withAuthorizeNetFake { fake, _ in
            // 17 digits: AnetApiSchema.xsd allows 16 at most in cardNumber (the adapter's own
            // pre-check never sends such a card; the fake refuses it as the real API does).
            let body = #"{"createTransactionRequest":{"merchantAuthentication":{"name":"\#(FakeAuthorizeNetServer.apiLoginID)","#
                + #""transactionKey":"\#(FakeAuthorizeNetServer.transactionKey)"},"transactionRequest":{"#
                + #""transactionType":"authCaptureTransaction","amount":"5.00","payment":{"creditCard":{"#
                + #""cardNumber":"41111111111111113","expirationDate":"2030-12"}}}}}"#
            let reply = try await AuthorizeNetGatewayTests.post(body, to: fake.url)
            #expect(reply.contains("E00003") && reply.contains("cardNumber"))
            #expect(!reply.contains("41111111111111113"))
            #expect(fake.chargeCount == 0)
        }
        #expect(AuthorizeNetCodes.apiErrorOutcome("E00003") == .declined(code: "invalid_request", category: .error))
    }

    @Test func authorizeNetTopLevelErrorsAreClassified() {
        #expect(AuthorizeNetCodes.apiErrorOutcome("E00003") == .declined(code: "invalid_request", category: .error))
        #expect(AuthorizeNetCodes.apiErrorOutcome("E00015") == .declined(code: "invalid_field_length", category: .error))
        #expect(AuthorizeNetCodes.apiErrorOutcome("E00099") == .declined(code: "invalid_request", category: .error))
        for code in ["E00005", "E00006", "E00007", "E00008", "E00010", "E00011"] {
            #expect(AuthorizeNetCodes.apiErrorOutcome(code) == .declined(code: "gateway_authentication_failed", category: .error))
        }
        #expect(AuthorizeNetCodes.apiErrorOutcome("E00001") == .error(code: "processing_error", retryable: true))
        #expect(AuthorizeNetCodes.apiErrorOutcome("E00053") == .error(code: "server_busy", retryable: true))
        #expect(AuthorizeNetCodes.outcome(responseCode: "3", reasonCode: "33") == .declined(code: "invalid_request", category: .error))
        #expect(AuthorizeNetCodes.outcome(responseCode: "3", reasonCode: "13")
            == .declined(code: "gateway_authentication_failed", category: .error))
    }

    // MARK: - Rate limits

    @Test func nmiResponseCode301IsARetryableRateLimit() async throws {
        try await F.withNMI { fake, gateway in
            fake.core.enqueue(.rateLimitReply)
            let limited = await gateway.sale(F.charge("k", reference: "INV-301"))
            #expect(limited.outcome == .error(code: "rate_limited", retryable: true))
            #expect(limited.responseCode == "301")
            #expect(fake.transactions(orderID: "INV-301").isEmpty)
            #expect(await gateway.sale(F.charge("k", reference: "INV-301")).outcome == .approved)
        }
    }

    @Test(arguments: [(429, 7), (503, 2)])
    func http429And503AreRateLimitsThatCarryRetryAfter(_ status: Int, _ seconds: Int) async throws {
        try await F.withNMI { fake, gateway in
            fake.core.enqueue(.rateLimitedStatus(status, retryAfter: seconds))
            let limited = await gateway.sale(F.charge("k", reference: "INV-\(status)"))
            #expect(limited.outcome == .error(code: "http_\(status)", retryable: true))
            #expect(limited.retryAfter == .seconds(seconds))
        }
        try await withAuthorizeNetFake { fake, gateway in
            fake.core.enqueue(.rateLimitedStatus(status, retryAfter: seconds))
            let limited = await gateway.sale(F.charge("k", reference: "INV-\(status)"))
            #expect(limited.outcome == .error(code: "http_\(status)", retryable: true))
            #expect(limited.retryAfter == .seconds(seconds))
        }
    }

    @Test(arguments: [("120", Duration.seconds(120)), (" 5 ", .seconds(5)), ("Wed, 21 Oct 2015 07:28:00 GMT", nil), ("-1", nil)])
    func retryAfterIsReadAsDelaySeconds(_ header: String, _ expected: Duration?) {
        #expect(GatewayHTTP.retryAfter(header) == expected)
    }

    // MARK: - NMI duplicate detection (card + amount within dup_seconds)

    @Test func nmiRefusesTheSameCardAndAmountWithinTheDefaultWindowWhateverTheOrderID() async throws {
        try await F.withNMI { fake, _ in
            let plain = "security_key=\(FakeNMIServer.securityKey)&type=sale&amount=10.00&ccnumber=4111111111111111&ccexp=1230"
            let first = try await NMIGatewayTests.post(plain + "&orderid=A", to: fake.baseURL + "/api/transact.php")
            let second = try await NMIGatewayTests.post(plain + "&orderid=B", to: fake.baseURL + "/api/transact.php")
            #expect(first.contains("response_code=100"))
            #expect(second.contains("Duplicate+transaction") && second.contains("response_code=300"))
            fake.advanceClock(by: 1_200)
            let later = try await NMIGatewayTests.post(plain + "&orderid=C", to: fake.baseURL + "/api/transact.php")
            #expect(later.contains("response_code=100"))
            let disabled = try await NMIGatewayTests.post(plain + "&orderid=D&dup_seconds=0", to: fake.baseURL + "/api/transact.php")
            #expect(disabled.contains("response_code=100"))
        }
    }

    @Test func theNMIAdapterChargesTwoEqualAmountsOnOneCardBothOnce() async throws {
        try await F.withNMI { fake, gateway in
            #expect(await gateway.sale(F.charge("k1", reference: "STEP-1")).outcome == .approved)
            #expect(await gateway.sale(F.charge("k2", reference: "STEP-2")).outcome == .approved)
            #expect(fake.transactions(orderID: "STEP-1").count == 1)
            #expect(fake.transactions(orderID: "STEP-2").count == 1)
        }
    }

    // MARK: - Fakes as the real gateways

    @Test func nmiRefundsAreAcceptedOnTransactionsPendingSettlement() async throws {
        try await F.withNMI { fake, gateway in
            let sale = await gateway.sale(F.charge("k", reference: "INV-R"))
            #expect(fake.transaction(sale.transactionID ?? "")?.condition == "pendingsettlement")
            let refund = await gateway.refund(F.followUp("r", reference: "INV-R", transactionID: sale.transactionID,
                                                         amount: F.money(234)))
            #expect(refund.outcome == .approved)
        }
    }
}
