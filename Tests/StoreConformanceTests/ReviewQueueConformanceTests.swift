import Foundation
import Payments
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `ReviewQueueStore` on the run's engine: the queue holds one merchant's one-off transactions in
/// review and its steps in review with their latest attempt, in the transactions' insertion order,
/// paged by sequence; nothing settled, of another merchant, or a step's earlier attempt shows.
@Suite("Store conformance: review queue")
struct ReviewQueueConformanceTests {
    static let due = Timestamp.parse("2027-03-02T09:00:00.000Z")!

    /// An attempt of `step` recorded as the runner records it, then `in_doubt` with `reason` (an
    /// outcome's write sets the error code; an insert does not).
    static func attempt(_ fixture: StoreFixture, _ step: ScheduleStep, number: Int, reason: String) async throws -> Transaction {
        let attempt = try await fixture.transaction(status: .inDoubt, amount: step.amount) {
            $0.scheduleID = step.scheduleID
            $0.stepID = step.id
            $0.attempt = number
            $0.orderReference = "s\(number)-\(step.id.suffix(10))"
            $0.secureCardReference = fixture.card.reference
            $0.maskedNumber = "424242******4242"
        }
        try await Self.setReason(fixture, attempt.id, reason)
        return attempt
    }

    static func setReason(_ fixture: StoreFixture, _ id: String, _ reason: String) async throws {
        _ = try await fixture.sql.run("UPDATE transactions SET error_code = \(reason) WHERE id = \(id)")
    }

    @Test func theQueueHoldsTransactionsAndStepsInReviewWithTheirLatestAttemptInOrder() async throws {
        let fixture = try await StoreFixture()
        let steps = try await fixture.schedules(1, stepsEach: 3, due: Self.due)
        let oneOff = try await fixture.transaction(status: .needsReview)
        try await Self.setReason(fixture, oneOff.id, "lookup_unavailable: http_503")
        _ = try await fixture.transaction(status: .approved)
        _ = try await fixture.transaction(status: .inDoubt)
        let first = try await Self.attempt(fixture, steps[0], number: 1, reason: "lookup_unavailable: timeout")
        _ = try await Self.attempt(fixture, steps[1], number: 1, reason: "old")
        let latest = try await Self.attempt(fixture, steps[1], number: 2, reason: "lookup_unavailable: partial")
        _ = try await Self.attempt(fixture, steps[2], number: 1, reason: "still in doubt, step not in review")
        _ = try await fixture.sql.run("UPDATE schedule_steps SET status = 'needs_review', attempts = 1 WHERE id = \(steps[0].id)")
        _ = try await fixture.sql.run("UPDATE schedule_steps SET status = 'needs_review', attempts = 2 WHERE id = \(steps[1].id)")
        _ = try await fixture.sql.run("UPDATE schedule_steps SET status = 'processing', attempts = 1 WHERE id = \(steps[2].id)")
        let other = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(verifyOnRegistration: false), actor: "test").merchant
        var foreign = Transaction(
            id: Transaction.makeID(), merchantID: other.id, type: .sale, amount: 5, currency: try Currency(code: "EUR"), gateway: "sandbox", now: Date())
        foreign.status = .needsReview
        try await fixture.store.insertTransaction(
            foreign, audit: AuditEntry(merchantID: other.id, actor: "test", action: "transaction.created", objectType: "transaction", objectID: foreign.id))

        let queue = try await fixture.store.reviewQueue(merchantID: fixture.merchantID, afterSequence: nil, limit: 10)
        #expect(queue.map(\.transaction.id) == [oneOff.id, first.id, latest.id])
        #expect(queue.map { $0.step?.id } == [nil, steps[0].id, steps[1].id])
        #expect(queue[0].transaction.errorCode == "lookup_unavailable: http_503")
        #expect(queue[1].step?.status == .needsReview && queue[1].step?.dueAt == steps[0].dueAt && queue[1].step?.scheduleID == steps[0].scheduleID)
        #expect(queue[2].transaction.attempt == 2 && queue[2].transaction.errorCode == "lookup_unavailable: partial")
        #expect(queue[2].transaction.orderReference == latest.orderReference)
        #expect(queue[1].transaction.maskedNumber == "424242******4242" && queue[1].transaction.secureCardReference == fixture.card.reference)
        #expect(zip(queue, queue.dropFirst()).allSatisfy { $0.transaction.sequence < $1.transaction.sequence })

        let page = try await fixture.store.reviewQueue(merchantID: fixture.merchantID, afterSequence: nil, limit: 2)
        #expect(page.map(\.transaction.id) == [oneOff.id, first.id])
        let rest = try await fixture.store.reviewQueue(merchantID: fixture.merchantID, afterSequence: page[1].transaction.sequence, limit: 2)
        #expect(rest.map(\.transaction.id) == [latest.id])
        #expect(try await fixture.store.reviewQueue(merchantID: other.id, afterSequence: nil, limit: 10).map(\.transaction.id) == [foreign.id])
    }

    @Test func aStepIsReadByIdOnlyForItsOwnMerchant() async throws {
        let fixture = try await StoreFixture()
        let steps = try await fixture.schedules(1, stepsEach: 2, due: Self.due)
        let read = try await fixture.store.scheduleStep(id: steps[1].id, merchantID: fixture.merchantID)
        #expect(read?.id == steps[1].id && read?.scheduleID == steps[1].scheduleID && read?.sequence == 2 && read?.amount == steps[1].amount)
        let other = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(verifyOnRegistration: false), actor: "test").merchant
        #expect(try await fixture.store.scheduleStep(id: steps[1].id, merchantID: other.id) == nil)
        #expect(try await fixture.store.scheduleStep(id: "stp_missing", merchantID: fixture.merchantID) == nil)
    }
}
