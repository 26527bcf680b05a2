import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault

/// `ReceiptStore`, the e-mail receipt outbox, on the run's engine: a receipt is queued by the
/// outcome's own write (and only when that write applies), claimed by one deliverer at a time
/// however many claim at once on however many servers, offered to no one else until its lease
/// ends, retried at the time given, and never claimed again once sent or failed for good.
@Suite("Store conformance: e-mail receipt outbox")
struct ReceiptOutboxConformanceTests {
    /// A fixture with `count` approved scheduled charges, each outcome written with an e-mail
    /// receipt (through `recordAttempts` and `recordOutcomes`, as the runner writes them); the
    /// receipts' ids, oldest first.
    static func fixtureWithReceipts(_ count: Int) async throws -> (StoreFixture, [String]) {
        let fixture = try await StoreFixture()
        let now = Date()
        try await fixture.schedules(count, stepsEach: 1, due: now.addingTimeInterval(-60))
        let claimed = try await fixture.store.claimDueSteps(
            asOf: now, merchantID: nil, owner: "runner", now: now, leaseUntil: now.addingTimeInterval(300), limit: count, isOwnerGone: { _ in false })
        var ids: [String] = []
        for due in claimed.due {
            let receipt = try await approve(due, fixture: fixture)
            ids.append(receipt.id)
        }
        return (fixture, ids)
    }

    /// Writes `due`'s attempt, then its approved outcome with an e-mail receipt; the receipt.
    @discardableResult
    static func approve(_ due: DueStep, fixture: StoreFixture, stepGuard: String = "runner") async throws -> PendingReceipt {
        var transaction = Transaction(
            id: Transaction.makeID(), merchantID: fixture.merchantID, type: .sale, amount: due.step.amount, currency: due.step.currency,
            gateway: "sandbox", now: Date())
        transaction.scheduleID = due.schedule.id
        transaction.stepID = due.step.id
        transaction.attempt = 1
        #expect(try await fixture.store.recordAttempts([ChargeAttempt(transaction: transaction, step: due.step, leaseOwner: "runner")]).allSatisfy { $0 == nil })
        transaction.status = .approved
        transaction.updatedAt = Date()
        var receipt = PendingReceipt(
            merchantID: fixture.merchantID, transactionID: transaction.id, event: .paid, recipient: "sealed:v1:\(transaction.id):AAAA",
            maskedRecipient: "a***@example.org", merchantName: "m", timeZone: "UTC", occurredAt: transaction.updatedAt, body: "m\n\nPaid: €10.00")
        receipt.binding = [7, 7, 7]
        let outcome = AttemptOutcome(
            outcome: StepOutcome(transaction: transaction, stepStatus: .approved), step: due.step, schedule: due.schedule,
            audit: AuditEntry(merchantID: fixture.merchantID, actor: "runner", action: "charge.approved", objectType: "transaction", objectID: transaction.id),
            leaseOwner: stepGuard, emailReceipt: receipt)
        _ = try await fixture.store.recordOutcomes([outcome]).first?.get()
        return receipt
    }

    static func pending(_ fixture: StoreFixture) async throws -> [EmailReceipt] {
        try await fixture.store.receipts(merchantID: fixture.merchantID, status: .pending, beforeSequence: nil, limit: 1000)
    }

    @Test func aReceiptIsQueuedWithTheOutcomeAsPreparedWithItsRecipientAsGiven() async throws {
        let (fixture, queued) = try await Self.fixtureWithReceipts(1)
        let stored = try #require(try await Self.pending(fixture).first)
        #expect(stored.id == queued.first)
        #expect(stored.event == .paid && stored.status == .pending && stored.attempts == 0 && stored.leaseUntil == nil && stored.lastError == nil)
        #expect(stored.recipient.hasPrefix("sealed:v1:") && stored.maskedRecipient == "a***@example.org")
        #expect(stored.merchantName == "m" && stored.timeZone == "UTC" && stored.body == "m\n\nPaid: €10.00")
        #expect(stored.nextAttemptAt == stored.createdAt)
    }

    @Test func anOutcomeWhoseStepWasTakenOverQueuesNoReceipt() async throws {
        let fixture = try await StoreFixture()
        let now = Date()
        try await fixture.schedules(1, stepsEach: 1, due: now.addingTimeInterval(-60))
        let due = try #require(try await fixture.store.claimDueSteps(
            asOf: now, merchantID: nil, owner: "runner", now: now, leaseUntil: now.addingTimeInterval(300), limit: 1, isOwnerGone: { _ in false }
        ).due.first)
        // The outcome is written by a runner that no longer holds the step: refused, and its receipt with it.
        await #expect(throws: StepLeaseError.leaseLost(stepID: due.step.id)) {
            try await Self.approve(due, fixture: fixture, stepGuard: "another-runner")
        }
        #expect(try await Self.pending(fixture).isEmpty)
    }

    @Test func receiptsClaimedOnTwoServersAtOnceGoToOneDelivererEach() async throws {
        let (fixture, queued) = try await Self.fixtureWithReceipts(24)
        #expect(queued.count == 24)
        let now = Date().addingTimeInterval(1)
        let claimed = try await fixture.withAnotherStore { second in
            try await withThrowingTaskGroup(of: [String].self) { group in
                for index in 0..<6 {
                    let store = index % 2 == 0 ? fixture.store : second
                    group.addTask {
                        // Bounded: a store handing out leased receipts again must fail here, not loop.
                        var ids: [String] = []
                        for _ in 0..<30 {
                            let batch = try await store.claimReceipts(now: now, leaseUntil: now.addingTimeInterval(60), limit: 3)
                            if batch.isEmpty { break }
                            ids += batch.map(\.id)
                        }
                        return ids
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
        }
        #expect(claimed.count == 24)
        #expect(Set(claimed) == Set(queued))
    }

    @Test func aLeasedReceiptIsOfferedToNoOneUntilItsLeaseEnds() async throws {
        let (fixture, queued) = try await Self.fixtureWithReceipts(1)
        let now = Date().addingTimeInterval(1)
        #expect(try await fixture.store.claimReceipts(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10).map(\.id) == queued)
        #expect(try await fixture.store.claimReceipts(now: now.addingTimeInterval(59), leaseUntil: now.addingTimeInterval(120), limit: 10).isEmpty)
        // The deliverer holding it died: once the lease ends, another claims it.
        let again = try await fixture.store.claimReceipts(now: now.addingTimeInterval(61), leaseUntil: now.addingTimeInterval(120), limit: 10)
        #expect(again.map(\.id) == queued)
    }

    @Test func aRefusedAttemptIsCountedAndRetriedAtTheTimeGivenAndTheLastIsFinal() async throws {
        let (fixture, queued) = try await Self.fixtureWithReceipts(1)
        let id = try #require(queued.first)
        let now = Date().addingTimeInterval(1)
        _ = try await fixture.store.claimReceipts(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10)
        try await fixture.store.markReceiptFailed(id: id, error: "/usr/sbin/sendmail exited with status 75", retryAt: now.addingTimeInterval(300))
        let retrying = try #require(try await Self.pending(fixture).first)
        #expect(retrying.attempts == 1 && retrying.leaseUntil == nil && retrying.lastError == "/usr/sbin/sendmail exited with status 75")
        #expect(Timestamp.string(retrying.nextAttemptAt) == Timestamp.string(now.addingTimeInterval(300)))
        #expect(try await fixture.store.claimReceipts(now: now.addingTimeInterval(299), leaseUntil: now.addingTimeInterval(400), limit: 10).isEmpty)
        #expect(try await fixture.store.claimReceipts(now: now.addingTimeInterval(300), leaseUntil: now.addingTimeInterval(400), limit: 10).map(\.id) == [id])
        try await fixture.store.markReceiptFailed(id: id, error: "/usr/sbin/sendmail exited with status 1", retryAt: nil)
        let failed = try #require(try await fixture.store.receipts(merchantID: fixture.merchantID, status: .failed, beforeSequence: nil, limit: 10).first)
        #expect(failed.id == id && failed.attempts == 2 && failed.lastError == "/usr/sbin/sendmail exited with status 1" && failed.sentAt == nil)
        #expect(try await fixture.store.claimReceipts(now: now.addingTimeInterval(86_400), leaseUntil: now.addingTimeInterval(90_000), limit: 10).isEmpty)
        // A late mark of a settled receipt changes nothing.
        try await fixture.store.markReceiptSent(id: id, at: now)
        #expect(try await fixture.store.receipts(merchantID: fixture.merchantID, status: .sent, beforeSequence: nil, limit: 10).isEmpty)
    }

    @Test func aSentReceiptIsNeverClaimedAgainAndListsPageNewestFirstByStatus() async throws {
        let (fixture, queued) = try await Self.fixtureWithReceipts(3)
        let now = Date().addingTimeInterval(1)
        let claimed = try await fixture.store.claimReceipts(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10)
        #expect(claimed.map(\.id) == queued)
        try await fixture.store.markReceiptSent(id: queued[1], at: now)
        let sent = try await fixture.store.receipts(merchantID: fixture.merchantID, status: .sent, beforeSequence: nil, limit: 10)
        #expect(sent.map(\.id) == [queued[1]])
        #expect(sent.first?.sentAt.map(Timestamp.string) == Timestamp.string(now) && sent.first?.leaseUntil == nil)
        #expect(try await fixture.store.claimReceipts(now: now.addingTimeInterval(120), leaseUntil: now.addingTimeInterval(180), limit: 10).map(\.id)
            == [queued[0], queued[2]])
        let all = try await fixture.store.receipts(merchantID: fixture.merchantID, status: nil, beforeSequence: nil, limit: 2)
        #expect(all.map(\.id) == [queued[2], queued[1]])
        let rest = try await fixture.store.receipts(merchantID: fixture.merchantID, status: nil, beforeSequence: all.last?.sequence, limit: 2)
        #expect(rest.map(\.id) == [queued[0]])
        #expect(try await fixture.store.receipts(merchantID: "mer_other", status: nil, beforeSequence: nil, limit: 10).isEmpty)
    }
}
