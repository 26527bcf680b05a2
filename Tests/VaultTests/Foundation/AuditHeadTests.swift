import Foundation
import Testing
@testable import Vault
@testable import VaultSQLite

/// The audit chain's head is read once per write transaction and recorded once before COMMIT:
/// the chain must stay exactly verifiable however writes are batched, rolled back or shared
/// between connections (two processes on one database).
@Suite struct AuditHeadTests {
    struct Refused: Error {}

    static func entry(_ number: Int) -> AuditEntry {
        AuditEntry(merchantID: nil, actor: "test", action: "test.event", objectType: "test", objectID: "o\(number)", details: ["n": String(number)])
    }

    /// The recorded head's sequence and link (without its tag).
    static func recordedHead(_ store: SQLiteStore) throws -> String? {
        try store.database.readNow { try $0.queryOne("SELECT value FROM meta WHERE key = 'audit_head'")?.string("value") }
            .map { $0.split(separator: ":").prefix(2).joined(separator: ":") }
    }

    /// A store with a keyring over it, so its audit chain is keyed; keep the keyring as long as the store.
    static func keyedStore(_ path: String, ring: MasterKeyRing? = nil) async throws -> (SQLiteStore, Keyring) {
        let store = try SQLiteStore(path: path)
        let keyring = Keyring(masterKeys: try ring ?? MasterKeyRing(keys: [1: SecureBytes.random(count: 32)]), store: store)
        try await keyring.verifyMasterKey()
        return (store, keyring)
    }

    static func lastEvent(_ store: SQLiteStore) throws -> String? {
        try store.database.readNow { connection in
            try connection.queryOne("SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1").map {
                String(try $0.int64("seq")) + ":" + Encoding.hex(try $0.blob("hash"))
            }
        }
    }

    @Test func bodiesOfOneCommitThatFailAfterAppendingLeaveAnIntactChain() async throws {
        let directory = TemporaryDirectory()
        let (store, keyring) = try await Self.keyedStore(directory.file("vault.sqlite"))
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
        #expect(try Self.recordedHead(store) == Self.lastEvent(store))
    }

    @Test func twoConnectionsAppendingInTurnKeepOneChain() async throws {
        let directory = TemporaryDirectory()
        let ring = try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)])
        let (first, firstKeyring) = try await Self.keyedStore(directory.file("vault.sqlite"), ring: ring)
        defer { first.close() }
        let (second, secondKeyring) = try await Self.keyedStore(directory.file("vault.sqlite"), ring: ring)
        defer { second.close() }
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
        #expect(try Self.recordedHead(first) == Self.lastEvent(first))
    }

    @Test func itemsOfOneWriteEachShareOneHeadAndAFailingItemLeavesNoGap() async throws {
        let directory = TemporaryDirectory()
        let (store, keyring) = try await Self.keyedStore(directory.file("vault.sqlite"))
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
        #expect(try Self.recordedHead(store) == Self.lastEvent(store))
    }

    @Test func aPreparedEventIsStoredAsPrepared() async throws {
        let directory = TemporaryDirectory()
        let (store, keyring) = try await Self.keyedStore(directory.file("vault.sqlite"))
        defer { store.close() }
        defer { withExtendedLifetime(keyring) {} }
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let event = PendingAuditEvent(Self.entry(7), at: at)
        try await store.database.write { try $0.appendAudit(event) }
        let stored = try #require(try await store.auditEvents(merchantID: nil, before: nil, limit: 1).first)
        #expect(stored.id == event.id && event.id.hasPrefix("ae_"))
        #expect(stored.occurredAt == at)
        #expect(stored.details == ["n": "7"])
        #expect(try await store.verifyAuditChain() == .intact(events: 2))
    }
}
