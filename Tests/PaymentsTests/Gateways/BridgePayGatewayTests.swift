import AsyncHTTPClient
import Foundation
@testable import GatewayFakes
import NIOCore
import NIOHTTP1
@testable import Payments
import Testing
import Vault

/// The BridgePay adapter against the fake BridgeComm endpoint, over real HTTP on loopback.
@Suite struct BridgePayGatewayTests {
    typealias F = GatewayFixtures

    /// 2030-12-01 09:30:05 UTC.
    static let fixedClock: @Sendable () -> Int64 = { 1_922_347_805 }

    /// Runs `body` with a fresh fake and an adapter pointed at it.
    func withGateway(timeout: Duration = .seconds(30), password: String = FakeBridgePayServer.password,
                     _ body: (FakeBridgePayServer, BridgePayGateway) async throws -> Void) async throws {
        let fake = try await FakeBridgePayServer.start()
        let gateway = BridgePayGateway(username: FakeBridgePayServer.username, password: password,
                                       merchantCode: FakeBridgePayServer.merchantCode,
                                       merchantAccountCode: FakeBridgePayServer.merchantAccountCode,
                                       endpoint: fake.endpoint, timeout: timeout, logger: GatewayFixtures.quietLogger, clock: Self.fixedClock)
        do {
            try await body(fake, gateway)
        } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }

    static let recordedSale = "<requestHeader><ClientIdentifier>SOAP</ClientIdentifier><TransactionID>INV1001</TransactionID>"
        + "<RequestType>004</RequestType><RequestDateTime>20301201093005</RequestDateTime><User>vaulttest</User>"
        + "<Password>57!sE@3Fm</Password><requestMessage><SoftwareVendor>Vault 1.0</SoftwareVendor>"
        + "<MerchantCode>320000</MerchantCode><MerchantAccountCode>320001</MerchantAccountCode>"
        + "<PaymentAccountNumber>4111111111111111</PaymentAccountNumber><ExpirationDate>1230</ExpirationDate>"
        + "<SecurityCode>123</SecurityCode><Amount>1234</Amount><TransactionType>sale</TransactionType>"
        + "<TransIndustryType>EC</TransIndustryType><AcctType>R</AcctType><HolderType>P</HolderType>"
        + "<InvoiceNum>INV1001</InvoiceNum><AccountHolderName>Ada &amp; Co</AccountHolderName>"
        + "<AccountZip>98004</AccountZip></requestMessage></requestHeader>"

    @Test func saleSendsExactlyTheRecordedRequestAsASOAPCall() async throws {
        try await withGateway { fake, gateway in
            let request = F.charge("run-42-step-7-try-1", reference: "INV1001", amount: F.money(1_234),
                                   card: F.card(cvv: "123", zip: "98004", holder: "Ada & Co"))
            #expect(await gateway.sale(request).outcome == .approved)
            let sent = try #require(fake.core.requests.first)
            #expect(sent.contentType == "text/xml; charset=utf-8")
            #expect(sent.text.hasPrefix("<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\""))
            let document = try #require(fake.receivedDocuments.first)
            expectSameRequest(Array(document.utf8), Self.recordedSale)
        }
    }

    @Test(arguments: [(Int64(1_835_481_599), "20280229235959"), (Int64(946_598_400), "19991231000000"),
                      (Int64(4_107_585_601), "21000301120001")])
    func requestDateTimeIsUTCInTheDocumentedFormat(_ seconds: Int64, _ expected: String) async throws {
        let fake = try await FakeBridgePayServer.start()
        let gateway = BridgePayGateway(username: FakeBridgePayServer.username, password: FakeBridgePayServer.password,
                                       merchantCode: FakeBridgePayServer.merchantCode,
                                       merchantAccountCode: FakeBridgePayServer.merchantAccountCode,
                                       endpoint: fake.endpoint, clock: { seconds })
        _ = await gateway.lookup(reference: "DATE1", gatewayTransactionID: nil)
        let fields = fake.receivedDocuments.first.map(FakeBridgePayXML.fields) ?? [:]
        await fake.stop()
        #expect(fields["RequestDateTime"] == expected)
    }

    @Test func aSaleApprovesAsCardNotPresentAndReportsTheGatewayFields() async throws {
        try await withGateway { fake, gateway in
            let result = await gateway.sale(F.charge("k", reference: "s_01HQ-a1", card: F.card(cvv: "999", zip: "55555")))
            let invoice = try #require(fake.allTransactions.first?.invoice)
            let recorded = try #require(fake.transactions(invoice: invoice).first)
            #expect(result.outcome == .approved)
            #expect(result.transactionID == recorded.gatewayTransID)
            #expect(result.authCode == recorded.authCode)
            #expect(result.responseCode == "00000")
            #expect(result.responseText == "A01 - Approved")
            #expect(result.cvvResult == "M")
            #expect(result.avsResult == "4F")
            let fields = FakeBridgePayXML.fields(try #require(fake.receivedDocuments.first))
            #expect(fields["TransIndustryType"] == "EC")
            #expect(fields["TransactionType"] == "sale")
        }
    }

    @Test func theInvoiceNumberIsTwelveLettersOrDigitsDerivedFromTheReference() async throws {
        try await withGateway { fake, gateway in
            _ = await gateway.sale(F.charge("a", reference: "s_01HQZX4-step_77a2"))
            _ = await gateway.sale(F.charge("b", reference: "s_01HQZX4-step_77a2", amount: F.money(2_222)))
            _ = await gateway.sale(F.charge("c", reference: "s_01HQZX4-step_77a3", amount: F.money(3_333)))
            let invoices = fake.allTransactions.map(\.invoice)
            #expect(invoices.count == 3)
            #expect(invoices[0] == invoices[1])
            #expect(invoices[0] != invoices[2])
            for invoice in invoices {
                #expect(invoice.count == 12)
                #expect(invoice.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) })
            }
            #expect(fake.allTransactions.map(\.transactionCode) == invoices)
        }
    }

    /// The crash test's checker derives invoice numbers in Python (`scripts/crash-test.sh`); this
    /// pins the value both must produce.
    @Test func theInvoiceDerivationIsStableAndPassesShortAlphanumericReferencesThrough() {
        #expect(BridgePayInvoiceNumber.of("s_01HQZX4-step_77a2") == "1N3SQ0RVGSKB")
        #expect(BridgePayInvoiceNumber.of("INV1001") == "INV1001")
        #expect(BridgePayInvoiceNumber.of("ABCDEFGHIJKLM").count == 12)
        #expect(BridgePayInvoiceNumber.of("").count == 12)
    }

    @Test(arguments: [(Int64(12_000), GatewayResult.Outcome.declined(code: "insufficient_funds", category: .soft), "30033"),
                      (Int64(50), .declined(code: "do_not_honor", category: .soft), "30032"),
                      (Int64(9_050), .declined(code: "call_issuer", category: .soft), "30072"),
                      (Int64(10_000), .declined(code: "pickup_card", category: .hard), "30034"),
                      (Int64(8_000), .declined(code: "lost_card", category: .hard), "30037"),
                      (Int64(11_000), .declined(code: "invalid_cvv", category: .hard), "30025"),
                      (Int64(13_000), .error(code: "processing_network_unavailable", retryable: true), "30022"),
                      (Int64(499), .inDoubt(reason: "gateway_internal_error"), "20002")])
    func publishedTriggerAmountsMapToHardSoftRetryableOrInDoubt(_ cents: Int64, _ expected: GatewayResult.Outcome,
                                                                  _ code: String) async throws {
        try await withGateway { _, gateway in
            let result = await gateway.sale(F.charge("k", reference: "T\(cents)", amount: F.money(cents)))
            #expect(result.outcome == expected)
            #expect(result.responseCode == code)
        }
    }

    @Test func aRefusedFieldIsAFinalErrorAndNothingWasCharged() async throws {
        try await withGateway { fake, gateway in
            fake.answerNext("10054")
            let result = await gateway.sale(F.charge("k", reference: "PERM1"))
            #expect(result.outcome == .declined(code: "gateway_rejected", category: .error))
            #expect(result.responseCode == "10054")
            #expect(fake.allTransactions.isEmpty)
            #expect(await gateway.lookup(reference: "PERM1", gatewayTransactionID: nil) == .notFound)
        }
    }

    @Test func wrongCredentialsAreAPermanentAuthenticationErrorThatNamesNoSecret() async throws {
        try await withGateway(password: "wrong-SECRET-pw77") { _, gateway in
            let result = await gateway.sale(F.charge("k", reference: "AUTH1"))
            #expect(result.outcome == .declined(code: "gateway_authentication_failed", category: .error))
            #expect(result.responseCode == "10024")
            expectAbsent("wrong-SECRET-pw77", in: F.allRenderings(of: result), "the result")
            expectAbsent("wrong-SECRET-pw77", in: F.allRenderings(of: gateway), "the adapter")
            #expect(await gateway.lookup(reference: "AUTH1", gatewayTransactionID: nil) == .unavailable("find_10024"))
        }
    }

    @Test(arguments: ["4111111111111111110", "60110009901394249", "601100099013942400"])
    func aCardOfSeventeenToNineteenDigitsIsDeclinedLocallyAndNeverSent(_ digits: String) async throws {
        try await withGateway { fake, gateway in
            let card = F.card(digits)
            for result in [await gateway.sale(F.charge("k", reference: "LONG1", card: card)),
                           await gateway.authorize(F.charge("k", reference: "LONG2", card: card)),
                           await gateway.verify(F.charge("k", reference: "LONG3", amount: F.money(0), card: card))] {
                #expect(result.outcome == .declined(code: "unsupported_card", category: .hard))
            }
            #expect(fake.core.requests.isEmpty)
        }
    }

    @Test func aSixteenDigitCardIsSentAndTheFakeRefusesLongerOnesItself() async throws {
        try await withGateway { fake, gateway in
            #expect(await gateway.sale(F.charge("k", reference: "SIXTEEN", card: F.card("5499740000000057"))).outcome == .approved)
            let document = try #require(fake.receivedDocuments.first)
            let long = document.replacingOccurrences(of: "5499740000000057", with: "4111111111111111110")
            #expect(fake.responseCode(for: long) == "10008")
            #expect(fake.responseCode(for: document.replacingOccurrences(of: "5499740000000057", with: "549974000000005"))
                == "10012")
            #expect(fake.responseCode(for: document.replacingOccurrences(of: "<Amount>1234</Amount>", with: "<Amount>12.34</Amount>"))
                == "10028")
            #expect(fake.allTransactions.count == 1)
        }
    }

    @Test func otherCurrenciesAndOversizedAmountsAreRefusedBeforeSending() async throws {
        try await withGateway { fake, gateway in
            #expect(await gateway.sale(F.charge("k", reference: "EUR1", amount: F.money(1_000, "EUR"))).outcome
                == .error(code: "unsupported_currency", retryable: false))
            #expect(await gateway.sale(F.charge("k", reference: "JPY1", amount: F.money(1_000, "JPY"))).outcome
                == .error(code: "unsupported_currency", retryable: false))
            #expect(await gateway.sale(F.charge("k", reference: "BIG1", amount: F.money(1_000_000_000_000))).outcome
                == .error(code: "invalid_amount", retryable: false))
            #expect(fake.core.requests.isEmpty)
        }
    }

    /// BridgePay's duplicate answer is evidence that a charge of this card and amount exists: the
    /// adapter never overrides the check, and a duplicate it cannot prove to be its own earlier
    /// attempt stays in doubt (the reconciler sends it to review), not re-sent, not failed.
    @Test func aDuplicateAnswerNotProvenOursStaysInDoubtAndIsNeverForcedThrough() async throws {
        try await withGateway { fake, gateway in
            let first = await gateway.sale(F.charge("step-1", reference: "s_step1a1", amount: F.money(2_500)))
            let second = await gateway.sale(F.charge("step-2", reference: "s_step2a1", amount: F.money(2_500)))
            #expect(first.outcome == .approved)
            #expect(second.outcome == .inDoubt(reason: "duplicate_transaction"))
            #expect(second.responseCode == "30036")
            #expect(fake.allTransactions.filter { $0.type == "sale" }.count == 1)
            #expect(fake.receivedTypes == ["004/sale", "004/sale", "023/"])
            for document in fake.receivedDocuments {
                #expect(!document.contains("Force"), "a request tried to override the duplicate check")
            }
            let find = FakeBridgePayXML.fields(try #require(fake.receivedDocuments.last))
            #expect(find["InvoiceNum"] == BridgePayInvoiceNumber.of("s_step2a1"))
            #expect(find["TransactionCode"] == nil)
        }
    }

    @Test func aDuplicateAnswerWhoseFindFailsStaysInDoubt() async throws {
        try await withGateway { fake, gateway in
            #expect(await gateway.sale(F.charge("step-1", reference: "s_fail1a1", amount: F.money(2_600))).outcome == .approved)
            fake.core.enqueue(.status(503), for: .lookup)
            let second = await gateway.sale(F.charge("step-2", reference: "s_fail2a1", amount: F.money(2_600)))
            #expect(second.outcome == .inDoubt(reason: "duplicate_transaction"))
            #expect(fake.allTransactions.count == 1)
        }
    }

    @Test func aResentChargeIsAnsweredFromTheOriginalNotChargedTwice() async throws {
        try await withGateway { fake, gateway in
            let first = await gateway.sale(F.charge("attempt-1", reference: "s_dup_a1"))
            let again = await gateway.sale(F.charge("attempt-1", reference: "s_dup_a1"))
            #expect(first.outcome == .approved)
            #expect(again.outcome == .approved)
            #expect(again.transactionID == first.transactionID)
            #expect(fake.allTransactions.count == 1)
            #expect(fake.receivedTypes == ["004/sale", "004/sale", "023/"])
        }
    }

    @Test func aLostAnswerIsInDoubtAndTheFindTransactionRequestSettlesIt() async throws {
        try await withGateway(timeout: .seconds(2)) { fake, gateway in
            fake.core.enqueue(.holdAfterProcessing)
            let result = await gateway.sale(F.charge("slow", reference: "s_slow_a1"))
            #expect(result.outcome == .inDoubt(reason: "timeout"))
            await fake.core.waitUntilHolding(1)
            fake.core.releaseHeldResponses()
            let charged = try #require(fake.allTransactions.first)
            guard case let .found(found) = await gateway.lookup(reference: "s_slow_a1", gatewayTransactionID: nil) else {
                Issue.record("the charge whose answer was lost was not found")
                return
            }
            #expect(found.outcome == .approved)
            #expect(found.transactionID == charged.gatewayTransID)
            #expect(found.authCode == charged.authCode)
            #expect(fake.receivedTypes == ["004/sale", "023/"])
            let find = FakeBridgePayXML.fields(try #require(fake.receivedDocuments.last))
            #expect(find["InvoiceNum"] == charged.invoice)
            #expect(find["TransactionCode"] == nil)
            #expect(found.networkTransactionID == charged.networkReference)
            #expect(found.networkTransactionID != nil)
        }
    }

    @Test func aLostAnswerAfterSettlementIsStillFoundByItsInvoiceNumber() async throws {
        try await withGateway { fake, gateway in
            fake.core.enqueue(.garbageAfterProcessing)
            #expect(await gateway.sale(F.charge("k", reference: "s_settled_a1")).outcome == .inDoubt(reason: "unreadable_response"))
            fake.settleAll()
            guard case let .found(found) = await gateway.lookup(reference: "s_settled_a1", gatewayTransactionID: nil) else {
                Issue.record("the settled charge was not found")
                return
            }
            #expect(found.outcome == .approved)
            #expect(fake.allTransactions.first?.status == .settled)
        }
    }

    @Test func aFoundDeclineIsADeclineAndUnprovenAbsenceIsUnavailable() async throws {
        try await withGateway { fake, gateway in
            fake.core.enqueue(.holdAfterProcessing)
            let sent = Task { await gateway.sale(F.charge("k", reference: "s_dec_a1", amount: F.money(12_000))) }
            await fake.core.waitUntilHolding(1)
            guard case let .found(found) = await gateway.lookup(reference: "s_dec_a1", gatewayTransactionID: nil) else {
                Issue.record("the decline was not found")
                fake.core.releaseHeldResponses()
                return
            }
            fake.core.releaseHeldResponses()
            _ = await sent.value
            #expect(found.outcome == .declined(code: "insufficient_funds", category: .soft))
            fake.core.enqueue(.status(503), for: .lookup)
            #expect(await gateway.lookup(reference: "s_dec_a1", gatewayTransactionID: nil) == .unavailable("http_503"))
            fake.core.enqueue(.garbage, for: .lookup)
            #expect(await gateway.lookup(reference: "s_dec_a1", gatewayTransactionID: nil) == .unavailable("unreadable_response"))
        }
    }

    @Test func aServerErrorIsInDoubtAndLookupProvesNothingWasCharged() async throws {
        try await withGateway { fake, gateway in
            fake.core.enqueue(.status(502))
            #expect(await gateway.sale(F.charge("k", reference: "s_502_a1")).outcome == .inDoubt(reason: "http_502"))
            #expect(await gateway.lookup(reference: "s_502_a1", gatewayTransactionID: nil) == .notFound)
        }
    }

    @Test func aRateLimitIsRetryableAndTheRetryChargesOnce() async throws {
        try await withGateway { fake, gateway in
            fake.core.enqueue(.status(429))
            let limited = await gateway.sale(F.charge("k", reference: "s_429_a1"))
            #expect(limited.outcome == .error(code: "http_429", retryable: true))
            #expect(fake.allTransactions.isEmpty)
            let retried = await gateway.sale(F.charge("k", reference: "s_429_a1"))
            #expect(retried.outcome == .approved)
            #expect(fake.allTransactions.count == 1)
        }
    }

    @Test func authorizeCaptureVoidAndRefund() async throws {
        try await withGateway { fake, gateway in
            let auth = await gateway.authorize(F.charge("a", reference: "AUTHA", amount: F.money(5_000)))
            #expect(auth.outcome == .approved)
            let noAmount = await gateway.capture(F.followUp("c0", reference: "CAPA0", transactionID: auth.transactionID))
            #expect(noAmount.outcome == .error(code: "amount_required", retryable: false))
            let tooMuch = await gateway.capture(F.followUp("c1", reference: "CAPA1", transactionID: auth.transactionID,
                                                           amount: F.money(5_001)))
            #expect(tooMuch.outcome == .declined(code: "gateway_rejected", category: .error))
            let capture = await gateway.capture(F.followUp("c2", reference: "CAPA2", transactionID: auth.transactionID,
                                                           amount: F.money(4_000)))
            #expect(capture.outcome == .approved)
            #expect(capture.transactionID == auth.transactionID)
            fake.settleAll()
            let refund = await gateway.refund(F.followUp("r1", reference: "REFA1", transactionID: auth.transactionID,
                                                         amount: F.money(1_500)))
            #expect(refund.outcome == .approved)
            #expect(refund.responseText == "A08 - Partial Refund Posted")
            #expect(refund.transactionID != auth.transactionID)
            let over = await gateway.refund(F.followUp("r2", reference: "REFA2", transactionID: auth.transactionID,
                                                       amount: F.money(2_501)))
            #expect(over.outcome == .declined(code: "gateway_rejected", category: .error))
            guard case let .found(foundRefund) = await gateway.lookup(reference: "REFA1", gatewayTransactionID: nil) else {
                Issue.record("the refund was not found by its reference")
                return
            }
            #expect(foundRefund.transactionID == refund.transactionID)
            let other = await gateway.sale(F.charge("s", reference: "SALEV", amount: F.money(2_000)))
            let void = await gateway.void(F.followUp("v", reference: "VOIDV", transactionID: other.transactionID,
                                                     amount: F.money(2_000)))
            #expect(void.outcome == .approved)
            #expect(void.responseText == "A03 - Void Posted (Auth Reversed)")
            #expect(fake.transaction(other.transactionID ?? "")?.status == .voided)
            let again = await gateway.void(F.followUp("v2", reference: "VOIDV2", transactionID: other.transactionID,
                                                      amount: F.money(2_000)))
            #expect(again.outcome == .declined(code: "gateway_rejected", category: .error))
            #expect(again.responseCode == "10042")
            #expect(fake.receivedTypes == ["004/sale-auth", "019/capture", "019/capture", "012/refund", "012/refund", "023/",
                                           "004/sale", "012/refund", "012/refund"])
        }
    }

    /// BridgePay documents one void per unsettled transaction, "for the full amount or partial
    /// amount", sent as a `refund`: the adapter declares partial voids and sends the amount.
    @Test func aVoidIsTheDocumentedRefundOfAnUnsettledSaleAndMayBePartial() async throws {
        try await withGateway { fake, gateway in
            #expect(gateway.supportsPartialVoid)
            let sale = await gateway.sale(F.charge("s", reference: "PVSALE", amount: F.money(3_000)))
            let partial = await gateway.void(F.followUp("v", reference: "PVOID1", transactionID: sale.transactionID,
                                                        amount: F.money(1_200)))
            #expect(partial.outcome == .approved)
            #expect(partial.responseText == "A07 - Partial Void Posted")
            let sent = FakeBridgePayXML.fields(try #require(fake.receivedDocuments.last))
            #expect(sent["TransactionType"] == "refund")
            #expect(sent["Amount"] == "1200")
            #expect(fake.transaction(sale.transactionID ?? "")?.refunded == 1_200)
            let noAmount = await gateway.void(F.followUp("v0", reference: "PVOID0", transactionID: sale.transactionID))
            #expect(noAmount.outcome == .error(code: "amount_required", retryable: false))
        }
    }

    @Test func verifyIsAnAccountVerificationWithoutAnAmount() async throws {
        try await withGateway { fake, gateway in
            let result = await gateway.verify(F.charge("v", reference: "VER1", amount: F.money(0), card: F.card(cvv: "999")))
            #expect(result.outcome == .approved)
            #expect(result.cvvResult == "M")
            let fields = FakeBridgePayXML.fields(try #require(fake.receivedDocuments.first))
            #expect(fields["TransactionType"] == "account-verification")
            #expect(fields["Amount"] == nil)
        }
    }

    @Test func aGarbageReplyIsInDoubtAndAMissingSOAPActionIsAFault() async throws {
        try await withGateway { fake, gateway in
            fake.core.enqueue(.garbageAfterProcessing)
            #expect(await gateway.sale(F.charge("k", reference: "GARB1")).outcome == .inDoubt(reason: "unreadable_response"))
            #expect(fake.allTransactions.count == 1)
            let sent = try #require(fake.core.requests.first)
            let status = try await Self.post(sent.body, to: fake.endpoint, soapAction: nil)
            #expect(status == 500)
            #expect(fake.allTransactions.count == 1)
        }
    }

    @Test func aRecurringChargeIsFlaggedAsStoredCredentialAndAFirstUseKeepsTheNetworkReference() async throws {
        try await withGateway { fake, gateway in
            var first = F.charge("first", reference: "FIRST1", amount: F.money(0))
            first.storedCredential = .initial
            let verified = await gateway.verify(first)
            #expect(verified.outcome == .approved)
            let stored = try #require(fake.allTransactions.first)
            #expect(verified.networkTransactionID == "N" + stored.gatewayTransID)
            #expect(stored.storedCredential == nil, "BridgePay publishes no value for a first use")
            var recurring = F.charge("next", reference: "NEXT1", amount: F.money(1_990))
            recurring.storedCredential = .recurring(originalNetworkTransactionID: verified.networkTransactionID)
            #expect(await gateway.sale(recurring).outcome == .approved)
            let fields = FakeBridgePayXML.fields(try #require(fake.receivedDocuments.last))
            #expect(fields["StoredCredential"] == "recurring")
            #expect(fake.allTransactions.last?.storedCredential == "recurring")
            var oneOff = F.charge("cit", reference: "CIT1", amount: F.money(2_990))
            oneOff.storedCredential = .customerInitiated
            #expect(await gateway.sale(oneOff).outcome == .approved)
            #expect(FakeBridgePayXML.fields(try #require(fake.receivedDocuments.last))["StoredCredential"] == nil)
        }
    }

    @Test func aDeclineCarriesNoNetworkReference() async throws {
        try await withGateway { _, gateway in
            let declined = await gateway.sale(F.charge("d", reference: "DECL1", amount: F.money(12_000)))
            #expect(declined.outcome == .declined(code: "insufficient_funds", category: .soft))
            #expect(declined.networkTransactionID == nil)
        }
    }

    @Test func aRefundIsFoundByItsOwnReference() async throws {
        try await withGateway { fake, gateway in
            let sale = await gateway.sale(F.charge("s", reference: "RFSALE", amount: F.money(3_000)))
            fake.settleAll()
            fake.core.enqueue(.garbageAfterProcessing)
            let lost = await gateway.refund(F.followUp("r", reference: "RFLOST", transactionID: sale.transactionID,
                                                       amount: F.money(1_000)))
            #expect(lost.outcome == .inDoubt(reason: "unreadable_response"))
            let query = GatewayLookupQuery(reference: "RFLOST", since: Date(),
                                           kind: .refund(parentTransactionID: sale.transactionID ?? "", amount: F.money(1_000)))
            guard case let .found(found) = await gateway.lookup(query) else {
                Issue.record("the refund whose answer was lost was not found")
                return
            }
            #expect(found.outcome == .approved)
            #expect(found.transactionID == fake.allTransactions.last?.gatewayTransID)
            #expect(fake.allTransactions.filter { $0.type == "refund" }.count == 1)
        }
    }

    /// A capture answers with its authorization's id: it is found by its own invoice number, never
    /// taken for the authorization found by that id.
    @Test func aCaptureIsFoundByItsOwnInvoiceNumberNotByItsAuthorizationsID() async throws {
        try await withGateway { fake, gateway in
            let auth = await gateway.authorize(F.charge("a", reference: "CAPAUTH", amount: F.money(4_000)))
            let parent = try #require(auth.transactionID)
            let never = GatewayLookupQuery(reference: "CAPNONE", gatewayTransactionID: parent, since: Date(),
                                           kind: .capture(parentTransactionID: parent, amount: F.money(4_000)))
            #expect(await gateway.lookup(never) == .notFound)
            fake.core.enqueue(.garbageAfterProcessing)
            let lost = await gateway.capture(F.followUp("c", reference: "CAPLOST", transactionID: parent, amount: F.money(4_000)))
            #expect(lost.outcome == .inDoubt(reason: "unreadable_response"))
            let query = GatewayLookupQuery(reference: "CAPLOST", gatewayTransactionID: parent, since: Date(),
                                           kind: .capture(parentTransactionID: parent, amount: F.money(4_000)))
            guard case let .found(found) = await gateway.lookup(query) else {
                Issue.record("the capture whose answer was lost was not found")
                return
            }
            #expect(found.outcome == .approved)
            #expect(found.transactionID == parent)
        }
    }

    @Test func theCredentialsNeverAppearInDescriptions() {
        let gateway = BridgePayGateway(username: "USER-SECRET-1", password: "PASS-SECRET-2", merchantCode: "111",
                                       merchantAccountCode: "222", endpoint: "https://user:pw@bp.example.test/x?k=v")
        let rendered = F.allRenderings(of: gateway)
        for secret in ["USER-SECRET-1", "PASS-SECRET-2", "user:pw", "k=v"] {
            expectAbsent(secret, in: rendered, "the adapter's description")
        }
    }

    /// Posts a raw body to the fake and returns the HTTP status.
    static func post(_ body: [UInt8], to url: String, soapAction: String?) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "text/xml; charset=utf-8")
        if let soapAction { request.headers.add(name: "SOAPAction", value: soapAction) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }
}
