import Foundation
@testable import GatewayFakes
@testable import Payments
import Testing
import Vault

/// An NMI refund whose answer was lost is findable by its parent transaction and
/// action type (Query API `action_type=refund`, matched on `original_transaction_id`).
@Suite struct NMIRefundLookupTests {
    typealias F = GatewayFixtures


    static func refund(of parent: String?, _ amount: Money? = nil) -> GatewayLookupQuery {
        GatewayLookupQuery(reference: "RF", since: Date().addingTimeInterval(-3_600),
                           kind: .refund(parentTransactionID: parent ?? "missing", amount: amount))
    }

    @Test func aRefundIsFoundByItsParentAndAmount() async throws {
        try await F.withNMI { fake, gateway in
            let sale = await gateway.sale(F.charge("s", reference: "INV-RF", amount: F.money(5_000)))
            let other = await gateway.sale(F.charge("o", reference: "INV-RO", amount: F.money(5_000)))
            fake.settleAll()
            #expect(await gateway.lookup(Self.refund(of: sale.transactionID)) == .notFound)
            let refund = await gateway.refund(F.followUp("r", reference: "RF-1", transactionID: sale.transactionID, amount: F.money(1_500)))
            #expect(refund.outcome == .approved)
            guard case let .found(found) = await gateway.lookup(Self.refund(of: sale.transactionID, F.money(1_500))) else {
                Issue.record("the refund was not found by its parent")
                return
            }
            #expect(found.outcome == .approved && found.transactionID == refund.transactionID)
            #expect(await gateway.lookup(Self.refund(of: sale.transactionID, F.money(2_000))) == .notFound)
            #expect(await gateway.lookup(Self.refund(of: other.transactionID)) == .notFound)
            let sent = try #require(fake.core.requests.last).text
            #expect(sent.contains("action_type=refund") && sent.contains("start_date="))
        }
    }

    @Test func aFailedRefundQueryIsNotProofOfAbsence() async throws {
        try await F.withNMI { fake, gateway in
            fake.core.enqueue(.status(503), for: .lookup)
            #expect(await gateway.lookup(Self.refund(of: "9100000001")) == .unavailable("http_503"))
            fake.core.enqueue(.garbage, for: .lookup)
            #expect(await gateway.lookup(Self.refund(of: "9100000001")) == .unavailable("unreadable_response"))
        }
    }

    @Test func theQueryDateIsUTCToTheSecond() {
        #expect(NMIGateway.queryDate(Timestamp.parse("2030-01-02T03:04:05Z")!) == "20300102030405")
    }
}
