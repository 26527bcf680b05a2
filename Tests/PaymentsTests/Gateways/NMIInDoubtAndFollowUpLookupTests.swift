import Foundation
@testable import GatewayFakes
@testable import Payments
import Testing
import Vault

/// NMI: answers after which a charge may stand are in doubt, a re-send of the same attempt keeps
/// NMI's duplicate check on, and captures and voids are found among the parent's actions.
@Suite struct NMIInDoubtAndFollowUpLookupTests {
    typealias F = GatewayFixtures


    /// A communication error between NMI and the processor (420) or the issuer (421), or a
    /// processor error (400), may follow an approval: in doubt, never "retry", and the look-up by
    /// order id shows the transaction NMI kept, still in doubt (the reconciler sends it to review).
    @Test(arguments: [("420", "communication_error"), ("421", "issuer_communication_error"), ("400", "processor_error")])
    func aCommunicationErrorIsInDoubtAndItsLookUpStaysInDoubt(_ code: String, _ reason: String) async throws {
        try await F.withNMI { fake, gateway in
            let result = await gateway.sale(F.charge("k", reference: "INV-C\(code)", amount: F.money(Int64(code)! * 100)))
            #expect(result.outcome == .inDoubt(reason: reason))
            #expect(fake.transactions(orderID: "INV-C\(code)").count == 1)
            guard case let .found(found) = await gateway.lookup(reference: "INV-C\(code)", gatewayTransactionID: nil) else {
                Issue.record("the transaction NMI kept was not found")
                return
            }
            #expect(found.outcome == .inDoubt(reason: reason))
        }
    }

    /// `dup_seconds=0` goes with an attempt's first send only: sent again (same key and order id),
    /// NMI's own duplicate check answers and the adapter reconciles with the first charge.
    @Test func aResendOfTheSameAttemptKeepsNMIsDuplicateCheckOnAndChargesOnce() async throws {
        try await F.withNMI { fake, gateway in
            let request = F.charge("attempt-7", reference: "INV-RESEND", amount: F.money(4_200))
            let first = await gateway.sale(request)
            let again = await gateway.sale(request)
            #expect(first.outcome == .approved)
            #expect(again.outcome == .approved)
            #expect(again.transactionID == first.transactionID)
            #expect(fake.transactions(orderID: "INV-RESEND").count == 1)
            let bodies = fake.core.requests.filter { $0.path == "/api/transact.php" }.map(\.text)
            #expect(bodies.count == 2)
            #expect(bodies.first?.contains("dup_seconds=0") == true)
            #expect(bodies.last?.contains("dup_seconds") == false)
        }
    }

    /// Another attempt (another key and order id) of the same card and amount is a different
    /// charge: its first send turns the check off, so both are charged.
    @Test func anotherAttemptOfTheSameAmountStillTurnsTheCheckOff() async throws {
        try await F.withNMI { fake, gateway in
            let first = await gateway.sale(F.charge("step-1", reference: "INV-S1", amount: F.money(4_300)))
            let second = await gateway.sale(F.charge("step-2", reference: "INV-S2", amount: F.money(4_300)))
            #expect(first.outcome == .approved)
            #expect(second.outcome == .approved)
            #expect(first.transactionID != second.transactionID)
            #expect(fake.core.requests.allSatisfy { $0.text.contains("dup_seconds=0") })
        }
    }

    @Test func aCaptureIsFoundAmongItsAuthorizationsActionsAndItsAbsenceIsProven() async throws {
        try await F.withNMI { _, gateway in
            let auth = await gateway.authorize(F.charge("a", reference: "INV-CA", amount: F.money(5_000)))
            let parent = try #require(auth.transactionID)
            let query = GatewayLookupQuery(reference: "INV-CA-C", since: Date(), kind: .capture(parentTransactionID: parent, amount: F.money(4_000)))
            #expect(await gateway.lookup(query) == .notFound)
            #expect(await gateway.capture(F.followUp("c", reference: "INV-CA-C", transactionID: parent, amount: F.money(4_000))).isApproved)
            guard case let .found(found) = await gateway.lookup(query) else {
                Issue.record("the capture was not found")
                return
            }
            #expect(found.outcome == .approved)
            #expect(found.transactionID == parent)
            let otherAmount = GatewayLookupQuery(reference: "INV-CA-C", since: Date(),
                                                 kind: .capture(parentTransactionID: parent, amount: F.money(3_000)))
            #expect(await gateway.lookup(otherAmount) == .notFound)
            let unknown = GatewayLookupQuery(reference: "x", since: Date(), kind: .capture(parentTransactionID: "999", amount: F.money(1)))
            #expect(await gateway.lookup(unknown) == .unavailable("parent_not_found"))
        }
    }

    @Test func aVoidIsFoundAmongItsParentsActionsAndTheVoidedChargeIsNoMoneyCollected() async throws {
        try await F.withNMI { _, gateway in
            let sale = await gateway.sale(F.charge("s", reference: "INV-VO", amount: F.money(2_200)))
            let parent = try #require(sale.transactionID)
            let query = GatewayLookupQuery(reference: "INV-VO-V", since: Date(), kind: .void(parentTransactionID: parent))
            #expect(await gateway.lookup(query) == .notFound)
            #expect(await gateway.void(F.followUp("v", reference: "INV-VO-V", transactionID: parent)).isApproved)
            guard case let .found(found) = await gateway.lookup(query) else {
                Issue.record("the void was not found")
                return
            }
            #expect(found.outcome == .approved)
            guard case let .found(charge) = await gateway.lookup(reference: "INV-VO", gatewayTransactionID: nil) else {
                Issue.record("the voided charge was not found")
                return
            }
            #expect(charge.outcome == .declined(code: "transaction_voided", category: .hard))
            #expect(charge.networkTransactionID == nil)
        }
    }

    /// NMI's own transaction id is what later merchant-initiated charges refer to: a look-up keeps
    /// it as the network transaction id, as the direct answer does.
    @Test func aLookedUpApprovalKeepsTheNetworkTransactionID() async throws {
        try await F.withNMI { _, gateway in
            let sale = await gateway.sale(F.charge("n", reference: "INV-NTI", amount: F.money(2_300)))
            guard case let .found(found) = await gateway.lookup(reference: "INV-NTI", gatewayTransactionID: nil) else {
                Issue.record("the charge was not found")
                return
            }
            #expect(found.networkTransactionID == sale.networkTransactionID)
            #expect(found.networkTransactionID != nil)
        }
    }
}
