import Foundation
import Payments
@testable import Scheduler
import StorageTestSupport
import Testing
import Vault

/// What the storage engines keep for e-mail receipts beyond the outbox's delivery state, on the
/// run's engine: a transaction's sealed receipt address stored and read back as given, found for
/// re-sealing only while sealed under an older data key and replaced only if unchanged; a queued
/// receipt's binding stored as given, its recipient replaced only if unchanged; settled receipts
/// purged by age while pending ones stay; the pending count.
@Suite("Store conformance: receipt addresses and the outbox's upkeep")
struct ReceiptAddressConformanceTests {
    @Test func aTransactionsSealedReceiptAddressIsStoredAsGivenAndReSealedOnlyWhileOlderThanTheNewestKey() async throws {
        let fixture = try await StoreFixture()
        let addresses = TransactionReceiptAddress(keyring: fixture.keyring)
        var kept = Transaction(
            id: Transaction.makeID(), merchantID: fixture.merchantID, type: .sale, amount: 1000, currency: try Currency(code: "EUR"),
            gateway: "sandbox", now: Date())
        kept.sealedReceiptAddress = try await addresses.sealed("ada@example.org", for: kept)
        let sealed = try #require(kept.sealedReceiptAddress)
        _ = try await fixture.transaction { $0 = kept }
        let none = try await fixture.transaction()
        let stored = try #require(try await fixture.store.transaction(merchantID: fixture.merchantID, id: kept.id))
        #expect(stored.sealedReceiptAddress == sealed)
        #expect(try await addresses.opened(of: stored) == "ada@example.org")
        #expect(try await fixture.store.transaction(merchantID: fixture.merchantID, id: none.id)?.sealedReceiptAddress == nil)
        #expect(try await fixture.store.receiptAddressesToReseal(merchantID: fixture.merchantID, belowKeyVersion: 1, limit: 10).isEmpty)

        #expect(try await fixture.merchants.rotateDataKey(merchantID: fixture.merchantID, actor: "test") == 2)
        let due = try await fixture.store.receiptAddressesToReseal(merchantID: fixture.merchantID, belowKeyVersion: 2, limit: 10)
        #expect(due.map(\.id) == [kept.id] && due.first?.sealed == sealed)
        #expect(try await fixture.store.receiptAddressesToReseal(merchantID: "mer_other", belowKeyVersion: 2, limit: 10).isEmpty)
        // Replaced only if unchanged since read.
        #expect(try await !fixture.store.resealReceiptAddress(transactionID: kept.id, merchantID: fixture.merchantID, old: [1, 2, 3], new: [4, 5, 6]))
        #expect(try await addresses.resealAll(in: fixture.store, merchantID: fixture.merchantID) == 1)
        #expect(try await fixture.store.receiptAddressesToReseal(merchantID: fixture.merchantID, belowKeyVersion: 2, limit: 10).isEmpty)
        let resealed = try #require(try await fixture.store.transaction(merchantID: fixture.merchantID, id: kept.id))
        #expect(resealed.sealedReceiptAddress.flatMap(Keyring.keyVersion(ofSealedRecord:)) == 2)
        #expect(try await addresses.opened(of: resealed) == "ada@example.org")
    }

    @Test func aReceiptsBindingIsStoredAsGivenAndItsRecipientReplacedOnlyIfUnchanged() async throws {
        let (fixture, queued) = try await ReceiptOutboxConformanceTests.fixtureWithReceipts(2)
        let pending = try await ReceiptOutboxConformanceTests.pending(fixture)
        #expect(pending.count == 2 && pending.allSatisfy { $0.binding == [7, 7, 7] })
        #expect(try await fixture.store.pendingReceiptCount() == 2)
        let id = try #require(queued.first)
        let original = try #require(pending.first { $0.id == id }).recipient
        #expect(try await !fixture.store.resealReceiptRecipient(id: id, old: "sealed:v1:other", new: "sealed:v1:new"))
        #expect(try await fixture.store.resealReceiptRecipient(id: id, old: original, new: "sealed:v1:new"))
        let after = try await ReceiptOutboxConformanceTests.pending(fixture)
        #expect(after.first { $0.id == id }?.recipient == "sealed:v1:new")
        #expect(after.first { $0.id != id }?.recipient != "sealed:v1:new")
    }

    @Test func sentAndFailedReceiptsQueuedBeforeTheCutoffArePurgedAndPendingOnesKept() async throws {
        let (fixture, queued) = try await ReceiptOutboxConformanceTests.fixtureWithReceipts(3)
        let now = Date().addingTimeInterval(1)
        _ = try await fixture.store.claimReceipts(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10)
        try await fixture.store.markReceiptSent(id: queued[0], at: now)
        try await fixture.store.markReceiptFailed(id: queued[1], error: "refused", retryAt: nil)
        #expect(try await fixture.store.purgeSettledReceipts(queuedBefore: now.addingTimeInterval(-3600)) == 0)
        #expect(try await fixture.store.purgeSettledReceipts(queuedBefore: now.addingTimeInterval(3600)) == 2)
        let left = try await fixture.store.receipts(merchantID: fixture.merchantID, status: nil, beforeSequence: nil, limit: 10)
        #expect(left.map(\.id) == [queued[2]] && left.first?.status == .pending)
        #expect(try await fixture.store.pendingReceiptCount() == 1)
    }
}
