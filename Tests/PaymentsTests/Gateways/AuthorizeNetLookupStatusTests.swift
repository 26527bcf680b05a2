import Foundation
@testable import GatewayFakes
@testable import Payments
import Testing
import Vault

/// Authorize.Net look-ups decide from the transaction's reporting status (`transactionStatusEnum`
/// of `AnetApiSchema.xsd`), keep the network transaction id, and find follow-ups; verifications go
/// out in the account's currency.
@Suite struct AuthorizeNetLookupStatusTests {
    typealias F = GatewayFixtures

    /// An approved sale whose status the gateway then moved: what the look-up says is decided by
    /// the status, whatever the sale's original response code (1, approved).
    @Test(arguments: [
        ("capturedPendingSettlement", GatewayResult.Outcome.approved),
        ("settledSuccessfully", .approved),
        ("authorizedPendingCapture", .approved),
        ("approvedReview", .approved),
        ("voided", .declined(code: "transaction_voided", category: .hard)),
        ("expired", .declined(code: "authorization_expired", category: .soft)),
        ("settlementError", .declined(code: "settlement_error", category: .soft)),
        ("couldNotVoid", .declined(code: "could_not_void", category: .soft)),
        ("generalError", .declined(code: "processing_error", category: .soft)),
        ("failedReview", .declined(code: "failed_review", category: .hard)),
        ("declined", .declined(code: "generic_decline", category: .soft)),
        ("FDSPendingReview", .inDoubt(reason: "held_for_review: FDSPendingReview")),
        ("FDSAuthorizedPendingReview", .inDoubt(reason: "held_for_review: FDSAuthorizedPendingReview")),
        ("underReview", .inDoubt(reason: "held_for_review: underReview")),
        ("communicationError", .inDoubt(reason: "transaction_status: communicationError")),
    ])
    func aLookUpDecidesFromTheTransactionStatus(_ status: String, _ expected: GatewayResult.Outcome) async throws {
        try await withAuthorizeNetFake { fake, gateway in
            let sale = await gateway.sale(F.charge("k", reference: "INV-ST", amount: F.money(2_100)))
            let id = try #require(sale.transactionID)
            fake.setStatus(status, of: id)
            guard case let .found(found) = await gateway.lookup(reference: "INV-ST", gatewayTransactionID: id) else {
                Issue.record("the sale was not found")
                return
            }
            #expect(found.outcome == expected)
            #expect(found.transactionID == id)
            #expect((found.networkTransactionID != nil) == (expected == .approved))
        }
    }

    /// `getTransactionDetails` carries `networkTransId`: a sale found by its invoice number keeps
    /// the id later merchant-initiated charges refer to, as the direct answer does.
    @Test func aLookedUpApprovalKeepsTheNetworkTransactionID() async throws {
        try await withAuthorizeNetFake { _, gateway in
            let sale = await gateway.sale(F.charge("k", reference: "INV-NTI", amount: F.money(2_200)))
            let network = try #require(sale.networkTransactionID)
            guard case let .found(found) = await gateway.lookup(reference: "INV-NTI", gatewayTransactionID: nil) else {
                Issue.record("the sale was not found")
                return
            }
            #expect(found.networkTransactionID == network)
        }
    }

    @Test func aCaptureIsFoundFromItsAuthorizationsStatus() async throws {
        try await withAuthorizeNetFake { _, gateway in
            let auth = await gateway.authorize(F.charge("a", reference: "INV-CAP", amount: F.money(5_000)))
            let parent = try #require(auth.transactionID)
            let query = GatewayLookupQuery(reference: "INV-CAP-1", since: Date(),
                                           kind: .capture(parentTransactionID: parent, amount: F.money(3_000)))
            #expect(await gateway.lookup(query) == .notFound, "an authorization still pending capture proves no capture")
            #expect(await gateway.capture(F.followUp("c", reference: "INV-CAP-1", transactionID: parent, amount: F.money(3_000))).isApproved)
            guard case let .found(found) = await gateway.lookup(query) else {
                Issue.record("the capture was not found")
                return
            }
            #expect(found.outcome == .approved)
            #expect(found.transactionID == parent)
            let other = GatewayLookupQuery(reference: "INV-CAP-1", since: Date(),
                                           kind: .capture(parentTransactionID: parent, amount: F.money(2_000)))
            guard case let .found(mismatch) = await gateway.lookup(other) else {
                Issue.record("the capture of another amount was not reported")
                return
            }
            #expect(mismatch.outcome == .inDoubt(reason: "capture_amount_mismatch"))
            let unknown = GatewayLookupQuery(reference: "x", since: Date(), kind: .capture(parentTransactionID: "99", amount: F.money(1)))
            #expect(await gateway.lookup(unknown) == .unavailable("parent_not_found"))
        }
    }

    @Test func aVoidIsFoundFromItsParentsStatus() async throws {
        try await withAuthorizeNetFake { _, gateway in
            let sale = await gateway.sale(F.charge("s", reference: "INV-VD", amount: F.money(2_400)))
            let parent = try #require(sale.transactionID)
            let query = GatewayLookupQuery(reference: "INV-VD-V", since: Date(), kind: .void(parentTransactionID: parent))
            #expect(await gateway.lookup(query) == .notFound)
            #expect(await gateway.void(F.followUp("v", reference: "INV-VD-V", transactionID: parent)).isApproved)
            guard case let .found(found) = await gateway.lookup(query) else {
                Issue.record("the void was not found")
                return
            }
            #expect(found.outcome == .approved)
            #expect(found.transactionID == parent)
        }
    }

    /// A refund is found by the invoice number sent with it, over the whole window since it was
    /// sent; one that refunds another transaction is not taken for it.
    @Test func aRefundIsFoundByItsInvoiceNumberAndMustRefundTheParent() async throws {
        try await withAuthorizeNetFake { fake, gateway in
            let sale = await gateway.sale(F.charge("s", reference: "INV-RS", amount: F.money(3_000)))
            let parent = try #require(sale.transactionID)
            fake.settleAll()
            let since = Date()
            fake.core.enqueue(.garbageAfterProcessing)
            let lost = await gateway.refund(F.followUp("r", reference: "INV-RF1", transactionID: parent, amount: F.money(1_000),
                                                       card: F.card()))
            #expect(lost.outcome == .inDoubt(reason: "unreadable_response"))
            let query = GatewayLookupQuery(reference: "INV-RF1", since: since,
                                           kind: .refund(parentTransactionID: parent, amount: F.money(1_000)))
            guard case let .found(found) = await gateway.lookup(query) else {
                Issue.record("the refund whose answer was lost was not found")
                return
            }
            #expect(found.outcome == .approved)
            #expect(found.transactionID != parent)
            let wrongParent = GatewayLookupQuery(reference: "INV-RF1", since: since,
                                                 kind: .refund(parentTransactionID: "12345", amount: F.money(1_000)))
            #expect(await gateway.lookup(wrongParent) == .unavailable("parent_mismatch"))
            let never = GatewayLookupQuery(reference: "INV-RF9", since: since,
                                           kind: .refund(parentTransactionID: parent, amount: F.money(1_000)))
            #expect(await gateway.lookup(never) == .notFound)
        }
    }

    /// An Authorize.Net account takes its own currency only (reason 39 otherwise): a verification
    /// goes out in the currency of the request (the merchant's), never a fixed US dollar.
    @Test func aVerificationIsSentInTheRequestsCurrency() async throws {
        try await withAuthorizeNetFake { fake, gateway in
            fake.setAccountCurrency("CAD")
            let verified = await gateway.verify(F.charge("v", reference: "INV-VCAD", amount: F.money(0, "CAD")))
            #expect(verified.outcome == .approved)
            let sent = try #require(fake.core.requests.first).text
            #expect(sent.contains(#""amount":"0.01","currencyCode":"CAD""#))
            let inDollars = await gateway.verify(F.charge("v2", reference: "INV-VUSD", amount: F.money(0)))
            #expect(inDollars.outcome == .declined(code: "unsupported_currency", category: .error))
            #expect(inDollars.responseCode == "39")
        }
    }
}
