import Foundation
import Testing
@testable import Vault
@testable import VaultPostgres
@testable import VaultSQLite
import Scheduler
import StorageTestSupport

/// The audit chain's head is read once per write transaction and recorded once before COMMIT:
/// the chain must stay exactly verifiable however writes are batched, rolled back or shared
/// between connections (two processes on one database).
@Suite struct AuditHeadTests {
    struct Refused: Error {}

    static func entry(_ number: Int) -> AuditEntry {
        AuditEntry(merchantID: nil, actor: "test", action: "test.event", objectType: "test", objectID: "o\(number)", details: ["n": String(number)])
    }

    /// The recorded head's sequence and link (without its tag): SQLite's one chain, or PostgreSQL's
    /// chain of events without a merchant (every event of these tests).
    static func recordedHead(_ store: any VaultStorage) async throws -> String? {
        let sql = TestSQL(store)
        let head = switch sql.engine {
        case .sqlite: try await sql.queryOne("SELECT value FROM meta WHERE key = 'audit_head'")?.string("value")
        case .postgres: try await sql.queryOne("SELECT head FROM audit_chains WHERE chain = 'platform'")?.optionalString("head")
        }
        return head.map { $0.split(separator: ":").prefix(2).joined(separator: ":") }
    }

    /// A store with a keyring over it, so its audit chain is keyed; keep the keyring as long as the store.
    static func keyedStore(_ store: any VaultStorage, ring: MasterKeyRing? = nil) async throws -> (any VaultStorage, Keyring) {
        let keyring = Keyring(masterKeys: try ring ?? MasterKeyRing(keys: [1: SecureBytes.random(count: 32)]), store: store)
        try await keyring.verifyMasterKey()
        return (store, keyring)
    }

    /// The last event's place in its chain and its link.
    static func lastEvent(_ store: any VaultStorage) async throws -> String? {
        let sql = TestSQL(store)
        let last: SQLiteQuery = switch sql.engine {
        case .sqlite: "SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1"
        case .postgres: "SELECT chain_seq AS seq, hash FROM audit_events WHERE chain = 'platform' ORDER BY chain_seq DESC LIMIT 1"
        }
        return try await sql.queryOne(last).map { String(try $0.int64("seq")) + ":" + Encoding.hex(try $0.blob("hash")) }
    }

    @Test(.sqliteOnly("batches writes on SQLite's single writer thread; PostgreSQL has no batches: a failed write's savepoint and audit events are tested in VaultPostgresTests (aSavepointRollsBackOnlyItsOwnChangesAndAuditEvents)"))
    func bodiesOfOneCommitThatFailAfterAppendingLeaveAnIntactChain() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteStore(path: directory.file("vault.sqlite"))
        let (_, keyring) = try await Self.keyedStore(store)
        defer { store.close() }
        defer { withExtendedLifetime(keyring) {} }
        try await store.appendAudit(Self.entry(0))
        let gate = WriterGate()
        async let held: Void = store.database.write { _ in gate.holdWriter() }
        try await waitUntil { gate.isHoldingWriter }
        // Six bodies queued behind the held one run in one transaction; every third appends two
        // events and then fails, so its savepoint rolls back after the head moved.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for number in 1...6 {
                group.addTask {
                    do {
                        try await store.database.write { connection in
                            try connection.appendAudit(Self.entry(number))
                            try connection.appendAudit(Self.entry(number * 100))
                            if number % 3 == 0 { throw Refused() }
                        }
                        return true
                    } catch is Refused {
                        return false
                    }
                }
            }
            try await waitUntil { store.database.queuedWriteCount == 6 }
            gate.open()
            let written = try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            #expect(written == 4)
        }
        try await held
        #expect(try await store.verifyAuditChain() == .intact(events: 10))
        #expect(try await Self.recordedHead(store) == Self.lastEvent(store))
    }

    @Test func twoConnectionsAppendingInTurnKeepOneChain() async throws {
        let directory = TemporaryDirectory()
        let database = try await TestDatabase(path: directory.file("vault.sqlite"))
        let ring = try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)])
        let (first, firstKeyring) = try await Self.keyedStore(database.storage, ring: ring)
        let (second, secondKeyring) = try await Self.keyedStore(try await database.openAnother(), ring: ring)
        defer { TestDatabase.close(second) }
        defer { withExtendedLifetime((firstKeyring, secondKeyring)) {} }
        for number in 0..<10 {
            try await first.appendAudit(Self.entry(number))
            try await second.appendAudit(Self.entry(number + 100))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<40 {
                let store = number.isMultiple(of: 2) ? first : second
                group.addTask { try await store.appendAudit(Self.entry(number + 1000)) }
            }
            try await group.waitForAll()
        }
        #expect(try await first.verifyAuditChain() == .intact(events: 61))
        #expect(try await second.verifyAuditChain() == .intact(events: 61))
        #expect(try await Self.recordedHead(first) == Self.lastEvent(first))
    }

    @Test(.sqliteOnly("writeEach is SQLite's batched write (one transaction, a savepoint per item); the PostgreSQL stores have no such batch"))
    func itemsOfOneWriteEachShareOneHeadAndAFailingItemLeavesNoGap() async throws {
        let directory = TemporaryDirectory()
        let store = try SQLiteStore(path: directory.file("vault.sqlite"))
        let (_, keyring) = try await Self.keyedStore(store)
        defer { store.close() }
        defer { withExtendedLifetime(keyring) {} }
        let results = try await store.database.writeEach(Array(1...8)) { connection in
            { number in
                try connection.appendAudit(Self.entry(number))
                if number == 5 { throw Refused() }
            }
        }
        #expect(results.filter { (try? $0.get()) == nil }.count == 1)
        #expect(try await store.verifyAuditChain() == .intact(events: 8))
        #expect(try await Self.recordedHead(store) == Self.lastEvent(store))
    }

    @Test func aPreparedEventIsStoredAsPrepared() async throws {
        let directory = TemporaryDirectory()
        let database = try await TestDatabase(path: directory.file("vault.sqlite"))
        let (store, keyring) = try await Self.keyedStore(database.storage)
        defer { withExtendedLifetime(keyring) {} }
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let event = PendingAuditEvent(Self.entry(7), at: at)
        switch store {
        case let sqlite as SQLiteStore: try await sqlite.database.write { try $0.appendAudit(event) }
        case let postgres as PostgresStore: try await postgres.write { try await $0.appendAudit(event) }
        default: Issue.record("unknown engine")
        }
        let stored = try #require(try await store.auditEvents(merchantID: nil, before: nil, limit: 1).first)
        #expect(stored.id == event.id && event.id.hasPrefix("ae_"))
        #expect(stored.occurredAt == at)
        #expect(stored.details == ["n": "7"])
        #expect(try await store.verifyAuditChain() == .intact(events: 2))
    }
}
