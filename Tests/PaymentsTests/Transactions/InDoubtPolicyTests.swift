import Foundation
import Payments
import Testing
import Vault

/// The one rule for a lost answer: what each look-up result proves, before and after the grace
/// period, for a transaction in doubt, pending, or recorded as a retryable error.
@Suite struct InDoubtPolicyTests {
    static let sent = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = InDoubtPolicy(grace: 120, heldForReviewLimit: 3 * 86_400)

    static func transaction(_ status: TransactionStatus) throws -> Transaction {
        var transaction = Transaction(id: "txn_1", merchantID: "mer_1", type: .sale, amount: 100, currency: try Currency(code: "USD"), gateway: "nmi", now: sent)
        transaction.status = status
        return transaction
    }

    @Test func aFoundOutcomeSettlesAtOnce() throws {
        let approved = GatewayResult(outcome: .approved, transactionID: "g1")
        #expect(Self.policy.verdict(.found(approved), for: try Self.transaction(.inDoubt), now: Self.sent) == .settled(approved))
        let declined = GatewayResult(outcome: .declined(code: "card_declined", category: .hard))
        #expect(Self.policy.verdict(.found(declined), for: try Self.transaction(.pending), now: Self.sent.addingTimeInterval(500)) == .settled(declined))
    }

    @Test func absenceIsProvenOnlyAfterTheGracePeriod() throws {
        let transaction = try Self.transaction(.inDoubt)
        guard case .stillInDoubt = Self.policy.verdict(.notFound, for: transaction, now: Self.sent.addingTimeInterval(119)) else {
            Issue.record("not found inside the grace period must not prove absence")
            return
        }
        #expect(Self.policy.verdict(.notFound, for: transaction, now: Self.sent.addingTimeInterval(120)) == .provenAbsent)
    }

    @Test func aLookUpThatCannotBeMadeSendsWhatMayHaveBeenChargedToReviewAfterTheGracePeriod() throws {
        for status in [TransactionStatus.inDoubt, .pending] {
            let transaction = try Self.transaction(status)
            guard case .stillInDoubt = Self.policy.verdict(.unavailable("http_503"), for: transaction, now: Self.sent.addingTimeInterval(60)) else {
                Issue.record("inside the grace period it stays in doubt")
                continue
            }
            #expect(Self.policy.verdict(.unavailable("http_503"), for: transaction, now: Self.sent.addingTimeInterval(121))
                == .needsReview(reason: "lookup_unavailable: http_503"))
        }
        // A retryable error charged nothing: it never goes to review.
        guard case .stillInDoubt = Self.policy.verdict(.unavailable("http_503"), for: try Self.transaction(.error), now: Self.sent.addingTimeInterval(1e6))
        else {
            Issue.record("a retryable error must not go to review")
            return
        }
    }

    @Test func aTransactionHeldForReviewAtTheGatewayWaitsThenGoesToReview() throws {
        let held = GatewayResult.inDoubt("held_for_review: FDSPendingReview")
        let transaction = try Self.transaction(.inDoubt)
        #expect(Self.policy.verdict(.found(held), for: transaction, now: Self.sent.addingTimeInterval(2 * 86_400)) == .stillInDoubt(held))
        #expect(Self.policy.verdict(.found(held), for: transaction, now: Self.sent.addingTimeInterval(3 * 86_400))
            == .needsReview(reason: "held_for_review: FDSPendingReview"))
        let processing = GatewayResult.inDoubt("processing")
        #expect(Self.policy.verdict(.found(processing), for: transaction, now: Self.sent.addingTimeInterval(30 * 86_400)) == .stillInDoubt(processing))
    }

    @Test func onlyWhatMayHaveGoneThroughIsNeverSentAgain() throws {
        #expect(try [TransactionStatus.pending, .inDoubt, .needsReview].allSatisfy { try Self.transaction($0).mayHaveGoneThrough })
        #expect(try [TransactionStatus.approved, .declined, .error, .voided].allSatisfy { try !Self.transaction($0).mayHaveGoneThrough })
    }

    @Test func aDuplicateAnswerIsEvidenceThatASearchMissingItCannotOverturn() throws {
        var transaction = try Self.transaction(.inDoubt)
        transaction.errorCode = InDoubtPolicy.duplicateAnswer
        guard case .stillInDoubt = Self.policy.verdict(.notFound, for: transaction, now: Self.sent.addingTimeInterval(60)) else {
            Issue.record("inside the grace period it stays in doubt")
            return
        }
        #expect(Self.policy.verdict(.notFound, for: transaction, now: Self.sent.addingTimeInterval(121)) == .needsReview(reason: "duplicate_answer_not_found"))
    }
}
