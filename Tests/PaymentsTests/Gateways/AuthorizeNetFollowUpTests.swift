@testable import GatewayFakes
import Payments
import Testing
import Vault

/// Authorize.Net follow-ups (capture, void, refund), verification and look-ups against the fake
/// Authorize.Net server, over real HTTP on loopback.
@Suite struct AuthorizeNetFollowUpTests {
    typealias F = GatewayFixtures

    func withGateway(_ body: (FakeAuthorizeNetServer, AuthorizeNetGateway) async throws -> Void) async throws {
        try await withAuthorizeNetFake(body)
    }

    @Test func authorizeCaptureAndVoid() async throws {
        try await withGateway { fake, gateway in
            let auth = await gateway.authorize(F.charge("a", reference: "INV-AUTH1", amount: F.money(5_000)))
            #expect(auth.outcome == .approved)
            let capture = await gateway.capture(F.followUp("c", reference: "INV-AUTH1", transactionID: auth.transactionID,
                                                           amount: F.money(3_000)))
            #expect(capture.outcome == .approved)
            #expect(capture.transactionID == auth.transactionID)
            #expect(fake.transaction(auth.transactionID ?? "")?.captured == 300_000)
            let void = await gateway.void(F.followUp("v", reference: "INV-AUTH1", transactionID: auth.transactionID))
            #expect(void.outcome == .approved)
            #expect(fake.transaction(auth.transactionID ?? "")?.status == "voided")
            let again = await gateway.void(F.followUp("v2", reference: "INV-AUTH1", transactionID: auth.transactionID))
            // Reason 310 comes with response code 1 (as the real API): a repeated void is done.
            #expect(again.outcome == .approved)
            #expect(again.responseCode == "310")
            #expect(again.transactionID == auth.transactionID)
            let late = await gateway.capture(F.followUp("c2", reference: "INV-AUTH1", transactionID: auth.transactionID))
            #expect(late.outcome == .declined(code: "transaction_voided", category: .error))
        }
    }

    @Test func captureAboveTheAuthorizedAmountIsRefused() async throws {
        try await withGateway { _, gateway in
            let auth = await gateway.authorize(F.charge("a", reference: "INV-AUTH2", amount: F.money(5_000)))
            let capture = await gateway.capture(F.followUp("c", reference: "INV-AUTH2", transactionID: auth.transactionID,
                                                           amount: F.money(5_001)))
            #expect(capture.outcome == .declined(code: "amount_exceeds_authorized", category: .error))
        }
    }

    @Test func refundsNeedSettlementTheCardAndRemainingFunds() async throws {
        try await withGateway { fake, gateway in
            let card = F.card()
            let sale = await gateway.sale(F.charge("s", reference: "INV-RF", amount: F.money(10_000), card: card))
            let early = await gateway.refund(F.followUp("r0", reference: "RF-0", transactionID: sale.transactionID,
                                                        amount: F.money(1_000), card: card))
            #expect(early.outcome == .declined(code: "not_refundable", category: .error))
            fake.settleAll()
            let partial = await gateway.refund(F.followUp("r1", reference: "RF-1", transactionID: sale.transactionID,
                                                          amount: F.money(6_000), card: card))
            #expect(partial.outcome == .approved)
            #expect(partial.transactionID != sale.transactionID)
            let refundBody = try #require(fake.core.requests.last).text
            #expect(refundBody.contains(#""creditCard":{"cardNumber":"1111","expirationDate":"XXXX"}"#))
            let over = await gateway.refund(F.followUp("r2", reference: "RF-2", transactionID: sale.transactionID,
                                                       amount: F.money(4_001), card: card))
            #expect(over.outcome == .declined(code: "amount_exceeds_refundable", category: .error))
            let withoutCard = await gateway.refund(F.followUp("r3", reference: "RF-3", transactionID: sale.transactionID,
                                                              amount: F.money(100)))
            #expect(withoutCard.outcome == .approved)
            let lastTwo = fake.core.requests.suffix(2).map(\.text)
            #expect(lastTwo.first?.contains("getTransactionDetailsRequest") == true)
            #expect(lastTwo.last?.contains(#""cardNumber":"1111","expirationDate":"XXXX""#) == true)
            let byLast4 = await gateway.refund(FollowUpRequest(idempotencyKey: "r4", reference: "RF-4",
                                                               gatewayTransactionID: sale.transactionID ?? "",
                                                               amount: F.money(100), cardLast4: "411111******1111"))
            #expect(byLast4.outcome == .approved)
            let sentBefore = fake.core.requests.count
            let withoutAmount = await gateway.refund(F.followUp("r5", reference: "RF-5", transactionID: sale.transactionID))
            #expect(withoutAmount.outcome == .declined(code: "amount_required", category: .error))
            #expect(fake.core.requests.count == sentBefore)
            let unknown = await gateway.refund(F.followUp("r6", reference: "RF-6", transactionID: "12345", amount: F.money(100)))
            #expect(unknown.outcome == .error(code: "transaction_not_found", retryable: false))
        }
    }

    @Test func verifyAuthorizesOneMinorUnitAndVoidsIt() async throws {
        try await withGateway { fake, gateway in
            let result = await gateway.verify(F.charge("v", reference: "VER-1", amount: F.money(0), card: F.card(cvv: "900")))
            #expect(result.outcome == .approved)
            #expect(result.cvvResult == "M")
            #expect(fake.receivedTransactionTypes == ["authOnlyTransaction", "voidTransaction"])
            let auth = try #require(fake.transactions(invoiceNumber: "VER-1").first)
            #expect(auth.amountText == "0.01")
            #expect(auth.status == "voided")
        }
    }

    /// Amounts go out as Authorize.Net documents them, dollars and cents: a 0-decimal currency
    /// gets `.00`.
    @Test(arguments: [("JPY", Int64(1_000), "1000.00"), ("USD", Int64(1_234), "12.34")])
    func amountsAreSentWithTwoDecimals(_ currency: String, _ minorUnits: Int64, _ wire: String) async throws {
        try await withGateway { fake, gateway in
            fake.setAccountCurrency(currency)
            let result = await gateway.sale(F.charge("k", reference: "INV-\(currency)", amount: F.money(minorUnits, currency)))
            #expect(result.outcome == .approved)
            let sent = try #require(fake.core.requests.first).text
            #expect(sent.contains(#""amount":"\#(wire)","currencyCode":"\#(currency)""#))
        }
    }

    /// A 3-decimal currency cannot be expressed in two decimals: refused, never sent or rounded.
    @Test(arguments: ["KWD", "BHD"])
    func threeDecimalCurrenciesAreRefusedUnsent(_ currency: String) async throws {
        try await withGateway { fake, gateway in
            let sale = await gateway.sale(F.charge("k", reference: "INV-\(currency)", amount: F.money(1_250, currency)))
            #expect(sale.outcome == .error(code: "unsupported_currency", retryable: false))
            let verify = await gateway.verify(F.charge("v", reference: "VER-\(currency)", amount: F.money(0, currency)))
            #expect(verify.outcome == .error(code: "unsupported_currency", retryable: false))
            #expect(fake.core.requests.isEmpty)
        }
    }

    @Test func lookupByReferenceFindsTheChargeOrNothing() async throws {
        try await withGateway { _, gateway in
            let sale = await gateway.sale(F.charge("k", reference: "INV-LOOK", card: F.card(cvv: "123")))
            #expect(await gateway.lookup(reference: "INV-LOOK", gatewayTransactionID: nil)
                == .found(GatewayResult(outcome: .approved, transactionID: sale.transactionID, authCode: sale.authCode,
                                        responseCode: "1", responseText: "Approval", avsResult: "P", cvvResult: "M",
                                        networkTransactionID: sale.networkTransactionID)))
            #expect(await gateway.lookup(reference: "INV-NONE", gatewayTransactionID: nil) == .notFound)
        }
    }

    @Test func lookupByTransactionIDWorksAfterSettlementWhenTheListNoLongerHasIt() async throws {
        try await withGateway { fake, gateway in
            let sale = await gateway.sale(F.charge("k", reference: "INV-SET"))
            fake.settleAll()
            guard case let .found(found) = await gateway.lookup(reference: "INV-SET", gatewayTransactionID: sale.transactionID)
            else {
                Issue.record("a settled charge was not found by id")
                return
            }
            #expect(found.outcome == .approved)
            let unknownID = await gateway.lookup(reference: "INV-NONE", gatewayTransactionID: "99999")
            #expect(unknownID == .notFound)
        }
    }
}
