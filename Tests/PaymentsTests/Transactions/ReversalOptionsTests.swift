import Foundation
@testable import Payments
import Testing
import Vault

/// The reverse mode, refundable amount and reversal window of a transaction, from its type, status
/// and amounts (reverse modes: cancel, partial cancel, return, partial return, none).
@Suite struct ReversalOptionsTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 24 * 3600
    static let whole = ReversalPolicy(window: day, partialVoid: false)
    static let partial = ReversalPolicy(window: day, partialVoid: true)

    static func transaction(
        _ type: TransactionType, _ status: TransactionStatus, amount: Int64 = 3333, captured: Int64 = 0, refunded: Int64 = 0, voided: Int64 = 0
    ) -> Transaction {
        var transaction = Transaction(
            id: "txn_x", merchantID: "mer_x", type: type, amount: amount, currency: try! Currency(code: "USD"), gateway: "sandbox", now: t0)
        transaction.status = status
        transaction.capturedAmount = captured
        transaction.refundedAmount = refunded
        transaction.voidedAmount = voided
        return transaction
    }

    @Test func anApprovedSaleIsCancelledWithinTheWindowAndReturnedAfter() {
        let sale = Self.transaction(.sale, .approved)
        let early = sale.reversalOptions(Self.whole, now: Self.t0.addingTimeInterval(60))
        #expect(early == ReversalOptions(mode: .cancel, refundableAmount: 3333, voidableAmount: 3333, voidableUntil: Self.t0.addingTimeInterval(Self.day)))
        #expect(sale.reversalOptions(Self.partial, now: Self.t0).mode == .cancelPartial)
        let late = sale.reversalOptions(Self.partial, now: Self.t0.addingTimeInterval(Self.day))
        #expect(late.mode == .returnPartial && late.refundableAmount == 3333)
        #expect(late.voidableUntil == Self.t0.addingTimeInterval(Self.day))
    }

    @Test func aPartlyReversedSaleOffersWhatRemains() {
        let sale = Self.transaction(.sale, .approved, voided: 3000)
        let options = sale.reversalOptions(Self.partial, now: Self.t0)
        #expect(options.mode == .cancelPartial && options.voidableAmount == 333 && options.refundableAmount == 333)
        let lastUnit = Self.transaction(.sale, .approved, voided: 3332)
        #expect(lastUnit.reversalOptions(Self.partial, now: Self.t0).mode == .cancel)
        #expect(lastUnit.reversalOptions(Self.partial, now: Self.t0.addingTimeInterval(Self.day)).mode == .return)
    }

    @Test func aRefundedSaleCanOnlyBeRefundedFurther() {
        let partly = Self.transaction(.sale, .partiallyRefunded, refunded: 1000)
        let options = partly.reversalOptions(Self.partial, now: Self.t0)
        #expect(options == ReversalOptions(mode: .returnPartial, refundableAmount: 2333, voidableAmount: 0, voidableUntil: nil))
        let refunded = Self.transaction(.sale, .refunded, refunded: 3333)
        #expect(refunded.reversalOptions(Self.partial, now: Self.t0) == ReversalOptions(mode: .none, refundableAmount: 0, voidableAmount: 0, voidableUntil: nil))
    }

    @Test func anAuthorizationIsCancelledWhileHeldAndReturnedOnceCaptured() {
        let held = Self.transaction(.authorize, .approved)
        #expect(held.reversalOptions(Self.partial, now: Self.t0).mode == .cancelPartial)
        #expect(held.reversalOptions(Self.partial, now: Self.t0).refundableAmount == 0)
        // Never captured and past the window: nothing to void or refund.
        #expect(held.reversalOptions(Self.partial, now: Self.t0.addingTimeInterval(Self.day)).mode == .none)

        let captured = Self.transaction(.authorize, .captured, captured: 2000)
        // Voided whole only once captured.
        #expect(captured.reversalOptions(Self.partial, now: Self.t0).mode == .cancel)
        let late = captured.reversalOptions(Self.partial, now: Self.t0.addingTimeInterval(Self.day))
        #expect(late.mode == .returnPartial && late.refundableAmount == 2000)
    }

    @Test func failedSettledAndFollowUpTransactionsAllowNothing() {
        for (type, status) in [(TransactionType.sale, TransactionStatus.declined), (.sale, .error), (.sale, .inDoubt), (.sale, .needsReview),
                               (.sale, .pending), (.sale, .voided), (.verify, .approved), (.capture, .approved), (.void, .approved),
                               (.refund, .approved), (.credit, .approved)] {
            let options = Self.transaction(type, status).reversalOptions(Self.partial, now: Self.t0)
            #expect(options == ReversalOptions(mode: .none, refundableAmount: 0, voidableAmount: 0, voidableUntil: nil), "\(type) \(status)")
        }
    }
}
