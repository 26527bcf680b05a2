import Foundation
import Payments
@testable import Scheduler
import Testing

@Suite struct TransactionStateTests {
    /// Every `state`/`subState` pair a transaction can be in, as README lists it.
    @Test(arguments: [
        (TransactionType.sale, TransactionStatus.pending, nil, 100, 101), (.sale, .inDoubt, nil, 200, 201), (.sale, .error, nil, 200, 202),
        (.verify, .approved, nil, 200, 201), (.verify, .declined, "hard", 200, 202),
        (.authorize, .approved, nil, 400, 401), (.sale, .declined, "soft", 400, 402), (.authorize, .declined, "soft", 400, 402),
        (.refund, .inDoubt, nil, 400, 403), (.credit, .inDoubt, nil, 400, 403), (.sale, .partiallyRefunded, nil, 400, 404),
        (.sale, .approved, nil, 400, 411), (.capture, .approved, nil, 400, 411), (.authorize, .captured, nil, 400, 411),
        (.sale, .declined, "hard", 400, 412), (.void, .declined, "soft", 400, 412), (.refund, .declined, "hard", 400, 412),
        (.sale, .voided, nil, 500, 502), (.void, .approved, nil, 500, 502),
        (.void, .pending, nil, 500, 503), (.void, .inDoubt, nil, 500, 503),
        (.sale, .refunded, nil, 500, 504), (.refund, .approved, nil, 500, 504), (.credit, .approved, nil, 500, 504),
        (.refund, .pending, nil, 500, 505), (.credit, .pending, nil, 500, 505),
        (.sale, .needsReview, nil, 200, 201), (.refund, .needsReview, nil, 400, 403), (.void, .needsReview, nil, 500, 503),
    ] as [(TransactionType, TransactionStatus, String?, Int, Int)])
    func everySeedCaseHasItsStateCodes(type: TransactionType, status: TransactionStatus, category: String?, state: Int, subState: Int) {
        let codes = Transaction.stateCodes(type: type, status: status, declineCategory: category)
        #expect(codes.state == state)
        #expect(codes.subState == subState)
    }

    @Test func everySubStateOfTheSeedIsProduced() {
        let produced = Set(TransactionType.allCases.flatMap { type in
            TransactionStatus.allCases.flatMap { status in
                ["hard", "soft"].map { Transaction.stateCodes(type: type, status: status, declineCategory: $0).subState }
            }
        })
        #expect(produced == [101, 201, 202, 401, 402, 403, 404, 411, 412, 502, 503, 504, 505])
    }

    @Test func everyStatusIsCovered() {
        #expect(TransactionStatus.allCases.count == 10)
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

