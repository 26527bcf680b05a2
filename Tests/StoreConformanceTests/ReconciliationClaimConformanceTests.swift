import Foundation
import Payments
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `TransactionReconciliationStore` claims, on the run's engine: which one-off transactions are
/// offered to the reconciler (`in_doubt` and stale `pending`, never a step's), that a claimed one is
/// offered to no other caller until its claim lapses (`reconcile_after`), and that a settlement is
/// written only while the status is still the one expected.
@Suite("Store conformance: reconciliation claims")
struct ReconciliationClaimConformanceTests {
    static let start = Timestamp.parse("2027-01-01T00:00:00.000Z")!

    static func claim(_ store: any VaultStorage, now: Date, limit: Int = 100) async throws -> [Transaction] {
        try await store.claimTransactionsToReconcile(
            inDoubtBefore: now.addingTimeInterval(-60), pendingBefore: now.addingTimeInterval(-600), now: now,
            claimUntil: now.addingTimeInterval(120), limit: limit)
    }

    @Test func onlyInDoubtAndStalePendingOneOffTransactionsAreOffered() async throws {
        let fixture = try await StoreFixture()
        let now = Self.start.addingTimeInterval(3600)
        let inDoubt = try await fixture.transaction(status: .inDoubt, at: now.addingTimeInterval(-120))
        let stalePending = try await fixture.transaction(status: .pending, at: now.addingTimeInterval(-900))
        try await fixture.transaction(status: .inDoubt, at: now.addingTimeInterval(-30))  // too recent
        try await fixture.transaction(status: .pending, at: now.addingTimeInterval(-300))  // its request may still be running
        try await fixture.transaction(status: .approved, at: now.addingTimeInterval(-900))
        try await fixture.transaction(status: .inDoubt, at: now.addingTimeInterval(-900)) { $0.stepID = "stp_1"; $0.attempt = 1 }
        let claimed = try await Self.claim(fixture.store, now: now)
        #expect(Set(claimed.map(\.id)) == [inDoubt.id, stalePending.id])
    }

    @Test func aClaimedTransactionIsOfferedToNoOtherStoreUntilItsClaimLapses() async throws {
        let fixture = try await StoreFixture()
        let now = Self.start.addingTimeInterval(3600)
        var written: [String] = []
        for _ in 0..<30 { written.append(try await fixture.transaction(status: .inDoubt, at: now.addingTimeInterval(-120)).id) }
        let store = fixture.store
        let (a, b) = try await fixture.withAnotherStore { other in
            async let first = Self.claim(store, now: now, limit: 20)
            async let second = Self.claim(other, now: now, limit: 20)
            return try await (first.map(\.id), second.map(\.id))
        }
        #expect(Set(a).isDisjoint(with: Set(b)))
        #expect(Set(a).union(b) == Set(written))
        #expect(try await Self.claim(fixture.store, now: now.addingTimeInterval(119)).isEmpty)
        let afterLapse = try await Self.claim(fixture.store, now: now.addingTimeInterval(121))
        #expect(Set(afterLapse.map(\.id)) == Set(written))
    }

    @Test func aClaimTakesAtMostItsLimitOldestFirst() async throws {
        let fixture = try await StoreFixture()
        let now = Self.start.addingTimeInterval(3600)
        var written: [String] = []
        for _ in 0..<5 { written.append(try await fixture.transaction(status: .inDoubt, at: now.addingTimeInterval(-120)).id) }
        #expect(try await Self.claim(fixture.store, now: now, limit: 3).map(\.id) == Array(written.prefix(3)))
        #expect(try await Self.claim(fixture.store, now: now, limit: 3).map(\.id) == Array(written.suffix(2)))
    }

    @Test func aSettlementIsWrittenOnlyWhileTheStatusIsTheOneExpected() async throws {
        let fixture = try await StoreFixture()
        let now = Self.start.addingTimeInterval(3600)
        let inDoubt = try await fixture.transaction(status: .inDoubt, at: now.addingTimeInterval(-120))
        var approved = inDoubt
        approved.apply(GatewayResult(outcome: .approved, transactionID: "gw_1"), now: now)
        let audit = AuditEntry(merchantID: fixture.merchantID, actor: "reconciler", action: "transaction.reconciled", objectType: "transaction",
                               objectID: inDoubt.id)
        #expect(try await fixture.store.settleTransaction(approved, expecting: .pending, parentUpdate: nil, audit: audit, notices: .none) == false)
        #expect(try await fixture.store.transaction(merchantID: fixture.merchantID, id: inDoubt.id)?.status == .inDoubt)
        #expect(try await fixture.store.settleTransaction(approved, expecting: .inDoubt, parentUpdate: nil, audit: audit, notices: .none))
        #expect(try await fixture.store.transaction(merchantID: fixture.merchantID, id: inDoubt.id)?.status == .approved)
        // A second settler that read it in doubt writes nothing.
        var declined = inDoubt
        declined.apply(GatewayResult(outcome: .declined(code: "card_declined", category: .hard), transactionID: "gw_2"), now: now)
        #expect(try await fixture.store.settleTransaction(declined, expecting: .inDoubt, parentUpdate: nil, audit: audit, notices: .none) == false)
        #expect(try await fixture.store.transaction(merchantID: fixture.merchantID, id: inDoubt.id)?.gatewayTransactionID == "gw_1")
        #expect(try await Self.claim(fixture.store, now: now.addingTimeInterval(3600)).isEmpty)
    }
}
