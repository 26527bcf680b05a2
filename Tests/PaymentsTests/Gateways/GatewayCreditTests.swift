import Foundation
@testable import GatewayFakes
@testable import Payments
import Testing
import Vault

/// Credits (refunds without an earlier transaction) on each adapter's wire.
@Suite struct GatewayCreditTests {
    typealias F = GatewayFixtures

    @Test func nmiSendsTypeCreditWithTheCardAndNoCVV() async throws {
        let fake = try await FakeNMIServer.start()
        let gateway = NMIGateway(securityKey: FakeNMIServer.securityKey, baseURL: fake.baseURL, logger: GatewayFixtures.quietLogger)
        let result = await gateway.credit(F.charge("credit-1", reference: "CR-1", amount: F.money(2_500), card: F.card(cvv: "123")))
        let sent = fake.core.requests.first.map { FakeNMIForm.fields($0.text) }
        await fake.stop()
        #expect(gateway.supportsCredit)
        #expect(result.outcome == .approved)
        #expect(sent?["type"] == "credit")
        #expect(sent?["ccnumber"] == "4111111111111111")
        #expect(sent?["amount"] == "25.00")
        #expect(sent?["orderid"] == "CR-1")
        #expect(sent?["cvv"] == nil)
    }

    @Test func nmiRefusesAZeroCreditWithoutACall() async throws {
        let fake = try await FakeNMIServer.start()
        let gateway = NMIGateway(securityKey: FakeNMIServer.securityKey, baseURL: fake.baseURL, logger: GatewayFixtures.quietLogger)
        let result = await gateway.credit(F.charge("credit-0", reference: "CR-0", amount: F.money(0)))
        let calls = fake.core.requests.count
        await fake.stop()
        #expect(result.outcome == .declined(code: "invalid_amount", category: .error))
        #expect(calls == 0)
    }

    /// An unlinked credit: `refundTransaction` with the whole card and no `refTransId` (ECC), the
    /// elements in the XSD's order, no `cardCode`.
    @Test func authorizeNetSendsAnUnlinkedRefundTransaction() throws {
        let requests = AuthorizeNetRequests(credentials: AuthorizeNetCredentials(apiLoginID: "login", transactionKey: "key"))
        var request = F.charge("credit-2", reference: "CR-2", amount: F.money(1_999), card: F.card(cvv: "123", holder: "Ada Lovelace"))
        request.card.cvv = nil
        let body = requests.charge(.refund, request, amount: request.amount, refID: "credit-2")
        let json = try #require(FakeJSON.parse(body)?["createTransactionRequest"]?["transactionRequest"])
        #expect(json["transactionType"]?.text == "refundTransaction")
        #expect(json["amount"]?.text == "19.99")
        #expect(json["payment"]?["creditCard"]?["cardNumber"]?.text == "4111111111111111")
        #expect(json["payment"]?["creditCard"]?["expirationDate"]?.text == "2030-12")
        #expect(json["payment"]?["creditCard"]?["cardCode"] == nil)
        #expect(json["refTransId"] == nil)
        #expect(json["order"]?["invoiceNumber"]?.text == "CR-2")
        let text = String(decoding: body, as: UTF8.self)
        let order = ["transactionType", "amount", "currencyCode", "payment", "order", "billTo", "transactionSettings"].compactMap {
            text.range(of: "\"\($0)\"")?.lowerBound
        }
        #expect(order.count == 7 && order == order.sorted())
    }
}
