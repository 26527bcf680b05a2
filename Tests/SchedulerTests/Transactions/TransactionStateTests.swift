import Foundation
import Payments
@testable import Scheduler
import Testing

@Suite struct TransactionStateTests {
    @Test(arguments: [
        (TransactionStatus.pending, 100, 101), (.inDoubt, 200, 201), (.error, 200, 202), (.approved, 400, 411), (.captured, 400, 411),
        (.declined, 400, 412), (.voided, 500, 502), (.refunded, 500, 504), (.partiallyRefunded, 500, 504),
    ])
    func everyStatusHasTheSeedsStateCodes(status: TransactionStatus, state: Int, subState: Int) {
        #expect(status.stateCodes.state == state)
        #expect(status.stateCodes.subState == subState)
    }

    @Test func everyStatusIsCovered() {
        #expect(TransactionStatus.allCases.count == 9)
    }

    @Test(arguments: [
        (RetryPolicy(), 1, 1), (RetryPolicy(), 2, 3), (RetryPolicy(), 3, 5),
    ])
    func softDeclinesRetryAfterTheConfiguredDelays(policy: RetryPolicy, failedAttempt: Int, days: Int) {
        let due = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(policy.nextAttempt(after: failedAttempt, previousDueAt: due) == due.addingTimeInterval(Double(days) * 86_400))
    }

    @Test func noAttemptFollowsTheLastOne() {
        #expect(RetryPolicy(maxAttempts: 4).nextAttempt(after: 4, previousDueAt: Date()) == nil)
        #expect(RetryPolicy(maxAttempts: 1).nextAttempt(after: 1, previousDueAt: Date()) == nil)
    }

    @Test func orderReferencesFitAuthorizeNetsInvoiceNumber() {
        let reference = ChargeRunner.orderReference(stepID: "stp_abcdefghijklmnopqrstu", attempt: 4)
        #expect(reference.count <= 20)
        #expect(reference.hasSuffix("a4"))
        #expect(reference != ChargeRunner.orderReference(stepID: "stp_abcdefghijklmnopqrstu", attempt: 3))
        #expect(Transaction.orderReference(for: "txn_abcdefghijklmnopqrstuvwxyz").count <= 20)
    }
}

