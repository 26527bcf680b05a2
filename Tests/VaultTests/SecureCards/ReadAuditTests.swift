import Foundation
import Synchronization
import Testing
@testable import Vault
import StorageTestSupport
@testable import VaultPostgres
@testable import VaultSQLite
import Scheduler

/// Reads of card data leave audit events (who read which card), appended with the next group
/// commit: a read never waits for a commit of its own.
@Suite struct ReadAuditTests {
    static func events(_ fixture: VaultFixture, _ action: String) async throws -> [AuditEvent] {
        try await fixture.store.auditEvents(merchantID: nil, filter: AuditFilter(action: action), before: nil, limit: 100)
    }

    @Test func retrievalsListsAndSearchesAreAuditedWithWhoAndWhat() async throws {
        let fixture = try await VaultFixture()
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let cards = fixture.cards()
        let first = try await cards.register(registration("r-1", pan: "4242424242424242"), merchant: merchant, actor: "test")
        let second = try await cards.register(registration("r-2", pan: "5555555555554444"), merchant: merchant, actor: "test")

        _ = try await cards.retrieve(merchantReference: "r-1", merchant: merchant, readBy: "apikey:ak_reader")
        _ = try await cards.retrieve(reference: second.reference, merchant: merchant, readBy: "apikey:ak_reader")
        _ = try await cards.list(merchant: merchant, query: SecureCardQuery(), readBy: "apikey:ak_lister")
        var search = SecureCardQuery()
        search.text = "r-2"
        _ = try await cards.list(merchant: merchant, query: search, readBy: "apikey:ak_lister")
        // The vault's own reads (charging) are not API reads.
        _ = try await cards.retrieve(reference: first.reference, merchant: merchant)
        try await fixture.settleReadAudits()

        let retrieved = try await Self.events(fixture, "secure_card.retrieved")
        #expect(retrieved.compactMap(\.objectID).sorted() == [first.reference, second.reference].sorted())
        #expect(retrieved.allSatisfy { $0.actor == "apikey:ak_reader" && $0.merchantID == merchant.id })
        let listed = try #require(try await Self.events(fixture, "secure_card.listed").first)
        #expect(listed.actor == "apikey:ak_lister")
        #expect(listed.details == ["count": "2", "ids": first.reference + "," + second.reference])
        let searched = try #require(try await Self.events(fixture, "secure_card.searched").first)
        #expect(searched.details == ["count": "1", "ids": second.reference])
        #expect(!searched.details.values.contains { $0.contains("r-2") })
        #expect(try await fixture.store.verifyAuditChain() == .intact(events: 8))
    }

    @Test(.sqliteOnly("holds SQLite's single writer thread to show a read does not wait for it; PostgreSQL has no single writer: its reads queue their events for a flush task (retrievalsListsAndSearchesAreAuditedWithWhoAndWhat)"))
    func aReadDoesNotWaitForTheWriterAndItsEventCommitsWithTheNextBatch() async throws {
        let fixture = try await VaultFixture()
        let sqlite = try #require(fixture.database.sqlite)
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let cards = fixture.cards()
        _ = try await cards.register(registration("r-1", pan: "4242424242424242"), merchant: merchant, actor: "test")
        let gate = WriterGate()
        async let held: Void = sqlite.database.write { _ in gate.holdWriter() }
        try await waitUntil { gate.isHoldingWriter }
        // The writer is busy: the reads still answer, their events wait in memory.
        for _ in 0..<5 {
            _ = try await cards.retrieve(merchantReference: "r-1", merchant: merchant, readBy: "apikey:ak_reader")
        }
        #expect(sqlite.database.deferredWriteCount == 5)
        #expect(try await Self.events(fixture, "secure_card.retrieved").isEmpty)
        gate.open()
        try await held
        try await sqlite.database.write { _ in }
        #expect(sqlite.database.deferredWriteCount == 0)
        #expect(try await Self.events(fixture, "secure_card.retrieved").count == 5)
        #expect(try await fixture.store.verifyAuditChain() == .intact(events: 8))
    }

    /// The PostgreSQL counterpart of the test above: another transaction holds the merchant's audit
    /// chain (its head row is locked until that transaction ends); reads still answer at once, and
    /// their events are written meanwhile on an overflow chain of the merchant (`mer_x/1`), not
    /// queued behind the held head.
    @Test(.enabled(if: TestEngine.current == .postgres, "PostgreSQL only: on SQLite, aReadDoesNotWaitForTheWriterAndItsEventCommitsWithTheNextBatch"))
    func aReadDoesNotWaitForItsMerchantsLockedAuditChainAndItsEventIsWrittenOnAnOverflowChain() async throws {
        let fixture = try await VaultFixture()
        let postgres = try #require(fixture.store as? PostgresStore)
        let (merchant, _) = try await fixture.merchants.create(name: "acme", role: .admin, settings: .init(), actor: "test")
        let cards = fixture.cards()
        _ = try await cards.register(registration("r-1", pan: "4242424242424242"), merchant: merchant, actor: "test")
        guard case .intact(let before) = try await fixture.store.verifyAuditChain() else {
            Issue.record("the chain does not verify before the test")
            return
        }
        let locked = Mutex(false)
        let released = Mutex(false)
        async let held: Void = postgres.write { transaction in
            // Linked now (not at COMMIT, as appendAudit does), so the chain's head stays locked.
            try await transaction.linkAudit(PendingAuditEvent(AuditEntry(merchantID: merchant.id, actor: "test", action: "test.hold", objectType: "test", objectID: nil)))
            locked.withLock { $0 = true }
            while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        }
        try await waitUntil { locked.withLock { $0 } }
        // The chain is locked: the reads still answer, and their events are written beside it.
        for _ in 0..<5 {
            _ = try await cards.retrieve(merchantReference: "r-1", merchant: merchant, readBy: "apikey:ak_reader")
        }
        try await fixture.settleReadAudits()
        #expect(try await Self.events(fixture, "secure_card.retrieved").count == 5)
        #expect(try await fixture.sql.count("SELECT count(*) AS n FROM audit_events WHERE chain = \(merchant.id + "/1")") == 5)
        released.withLock { $0 = true }
        try await held
        #expect(try await fixture.store.verifyAuditChain() == .intact(events: before + 6))
    }

    @Test func eventsQueuedAtCloseAreCommittedBeforeTheDatabaseCloses() async throws {
        let directory = TemporaryDirectory()
        let database = try await TestDatabase(path: directory.file("vault.sqlite"))
        let ring = try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)])
        do {
            let store = try await database.openAnother()
            let keyring = Keyring(masterKeys: ring, store: store)
            try await keyring.verifyMasterKey()
            for number in 0..<20 {
                store.recordRead(AuditEntry(merchantID: nil, actor: "apikey:ak_x", action: "secure_card.retrieved", objectType: "secure_card", objectID: "sc_\(number)"))
            }
            // Closing waits for the queued reads' flush, a task that needs a thread of the
            // cooperative pool: the blocking wait runs on a thread of its own.
            await OffPool.run { store.close() }
        }
        let reopened = database.storage
        let keyring = Keyring(masterKeys: ring, store: reopened)
        try await keyring.verifyMasterKey()
        #expect(try await reopened.auditEvents(merchantID: nil, filter: AuditFilter(action: "secure_card.retrieved"), before: nil, limit: 50).count == 20)
        #expect(try await reopened.verifyAuditChain() == .intact(events: 21))
    }
}
