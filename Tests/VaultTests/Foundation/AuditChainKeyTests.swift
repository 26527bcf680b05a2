import Foundation
import Testing
@testable import Vault
@testable import VaultPostgres
@testable import VaultSQLite
import Scheduler
import StorageTestSupport

/// The audit chain is a MAC under a key wrapped by the KEK: an attacker holding the database
/// (but not the KEK) who deletes, edits, reorders or recomputes events is caught by verification.
@Suite struct AuditChainKeyTests {
    /// How an attacker without the audit key recomputes every link.
    enum Forgery {
        case unkeyedSHA256
        case randomKey(SecureBytes)

        /// The link of `row` after `previous`, at its own `seq` or at `sequence` (an event renumbered).
        func link(previous: [UInt8], _ row: SQLiteRow, sequence: Int64? = nil) throws -> [UInt8] {
            let fields = (
                sequence: try sequence ?? row.int64("seq"), id: try row.string("id"), occurredAt: try row.string("occurred_at"),
                merchantID: try row.optionalString("merchant_id"), actor: try row.string("actor"), action: try row.string("action"),
                objectType: try row.string("object_type"), objectID: try row.optionalString("object_id"), details: try row.string("details"))
            switch self {
            case .unkeyedSHA256:
                return AuditChain.hash(
                    previous: previous, sequence: fields.sequence, id: fields.id, occurredAt: fields.occurredAt, merchantID: fields.merchantID,
                    actor: fields.actor, action: fields.action, objectType: fields.objectType, objectID: fields.objectID, details: fields.details)
            case .randomKey(let key):
                return try AuditChain.mac(
                    key: key, previous: previous, sequence: fields.sequence, id: fields.id, occurredAt: fields.occurredAt,
                    merchantID: fields.merchantID, actor: fields.actor, action: fields.action, objectType: fields.objectType,
                    objectID: fields.objectID, details: fields.details)
            }
        }
    }

    private func fixtureWithEvents() async throws -> VaultFixture {
        let fixture = try await VaultFixture()
        for name in ["a", "b", "c", "d"] {
            _ = try await fixture.merchants.create(name: name, role: .admin, settings: .init(), actor: "test")
        }
        return fixture
    }

    /// Renumbers the events from 1, recomputes every link with `forgery` and records a matching head
    /// (with a tag made the same way), as an attacker with the database can: SQLite's one chain, or
    /// each of PostgreSQL's chains (one per merchant).
    static func recompute(_ fixture: VaultFixture, with forgery: Forgery) async throws {
        guard let store = fixture.database.sqlite else {
            return try await recomputeEachChain(fixture.sql, with: forgery)
        }
        try store.database.writeNow { connection in
            let sequences = try connection.query("SELECT seq FROM audit_events ORDER BY seq").map { try $0.int64("seq") }
            try connection.run("UPDATE audit_events SET seq = -seq")
            for (index, sequence) in sequences.enumerated() {
                try connection.run("UPDATE audit_events SET seq = \(Int64(index + 1)) WHERE seq = \(-sequence)")
            }
            var previous = AuditChain.genesis
            var count: Int64 = 0
            for row in try connection.query("SELECT * FROM audit_events ORDER BY seq") {
                let link = try forgery.link(previous: previous, row)
                try connection.run("UPDATE audit_events SET prev_hash = \(previous), hash = \(link) WHERE seq = \(row.int64("seq"))")
                previous = link
                count = try row.int64("seq")
            }
            let head: String
            switch forgery {
            case .unkeyedSHA256: head = String(count) + ":" + Encoding.hex(previous) + ":" + Encoding.hex(Digest.sha256(previous))
            case .randomKey(let key): head = try AuditChain.headRecord(key: key, sequence: count, link: previous)
            }
            try connection.run("UPDATE meta SET value = \(head) WHERE key = 'audit_head'")
        }
    }

    static func recomputeEachChain(_ sql: TestSQL, with forgery: Forgery) async throws {
        for chain in try await sql.query("SELECT chain FROM audit_chains ORDER BY chain").map({ try $0.string("chain") }) {
            let rows = try await sql.query("SELECT * FROM audit_events WHERE chain = \(chain) ORDER BY chain_seq")
            var statements: [SQLiteQuery] = ["UPDATE audit_events SET chain_seq = -chain_seq WHERE chain = \(chain)"]
            var previous = AuditChain.genesis
            var count: Int64 = 0
            for row in rows {
                count += 1
                let link = try forgery.link(previous: previous, row, sequence: count)
                statements.append(
                    """
                    UPDATE audit_events SET chain_seq = \(count), prev_hash = \(previous), hash = \(link) WHERE id = \(try row.string("id"))
                    """)
                previous = link
            }
            let head: String?
            switch forgery {
            case _ where count == 0: head = nil
            case .unkeyedSHA256: head = String(count) + ":" + Encoding.hex(previous) + ":" + Encoding.hex(Digest.sha256(previous))
            case .randomKey(let key): head = try PostgresAuditChains.headRecord(key: key, chain: chain, sequence: count, link: previous)
            }
            statements.append("UPDATE audit_chains SET last_seq = \(count), last_hash = \(previous), head = \(head) WHERE chain = \(chain)")
            try await sql.runAll(statements)
        }
    }

    /// Checks a break: exact on SQLite's one chain; on PostgreSQL the reason names the chain first.
    static func expectBroken(
        _ verification: AuditVerification, _ sequence: Int64, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch TestEngine.current {
        case .sqlite:
            #expect(verification == .broken(sequence: sequence, reason: reason), sourceLocation: sourceLocation)
        case .postgres:
            guard case .broken(_, let stated) = verification else {
                Issue.record("the forgery was not detected: \(verification)", sourceLocation: sourceLocation)
                return
            }
            #expect(stated.hasPrefix("chain ") && stated.hasSuffix(reason), "\(stated)", sourceLocation: sourceLocation)
        }
    }

    static func isBroken(_ verification: AuditVerification) -> Bool {
        if case .broken = verification { return true }
        return false
    }

    @Test func theChainIsKeyedAndVerifies() async throws {
        let fixture = try await fixtureWithEvents()
        #expect(try await fixture.store.verifyAuditChain() == .intact(events: 5))
        let place = fixture.engine == .sqlite ? "seq" : "chain_seq"
        let stored = try await fixture.sql.query("SELECT * FROM audit_events ORDER BY seq")
        #expect(stored.count == 5)
        for row in stored {
            let unkeyed = try Forgery.unkeyedSHA256.link(previous: try row.blob("prev_hash"), row, sequence: try row.int64(place))
            #expect(try row.blob("hash") != unkeyed)
        }
    }

    @Test func deletingAnEventAndRecomputingTheChainWithUnkeyedSHA256IsDetected() async throws {
        let fixture = try await fixtureWithEvents()
        try await fixture.sql.run("DELETE FROM audit_events WHERE seq = 3")
        try await Self.recompute(fixture, with: .unkeyedSHA256)
        Self.expectBroken(try await fixture.store.verifyAuditChain(), 1, "its contents do not match its hash (edited)")
    }

    @Test func deletingAnEventAndRecomputingTheChainWithARandomKeyIsDetected() async throws {
        let fixture = try await fixtureWithEvents()
        try await fixture.sql.run("DELETE FROM audit_events WHERE seq = 3")
        try await Self.recompute(fixture, with: .randomKey(try SecureBytes.random(count: 32)))
        Self.expectBroken(try await fixture.store.verifyAuditChain(), 1, "its contents do not match its hash (edited)")
    }

    @Test func editingAnEventAndRecomputingEveryLinkIsDetected() async throws {
        let fixture = try await fixtureWithEvents()
        try await fixture.sql.run("UPDATE audit_events SET actor = 'someone-else' WHERE seq = 4")
        try await Self.recompute(fixture, with: .unkeyedSHA256)
        #expect(Self.isBroken(try await fixture.store.verifyAuditChain()))
    }

    @Test func reorderingTwoEventsIsDetected() async throws {
        let fixture = try await fixtureWithEvents()
        switch fixture.engine {
        case .sqlite:
            try await fixture.sql.runAll([
                "UPDATE audit_events SET seq = 100 WHERE seq = 2",
                "UPDATE audit_events SET seq = 2 WHERE seq = 3",
                "UPDATE audit_events SET seq = 3 WHERE seq = 100",
            ])
        case .postgres:
            // Two events of one chain (a merchant's) swap places in it.
            let merchant = try #require(try await fixture.store.merchant(named: "a"))
            _ = try await fixture.merchants.issueKey(merchantName: "a", role: .readonly, actor: "test")
            try await fixture.sql.runAll([
                "UPDATE audit_events SET chain_seq = 100 WHERE chain = \(merchant.id) AND chain_seq = 1",
                "UPDATE audit_events SET chain_seq = 1 WHERE chain = \(merchant.id) AND chain_seq = 2",
                "UPDATE audit_events SET chain_seq = 2 WHERE chain = \(merchant.id) AND chain_seq = 100",
            ])
        }
        Self.expectBroken(try await fixture.store.verifyAuditChain(), 2, "does not link to the event before it")
        try await Self.recompute(fixture, with: .randomKey(try SecureBytes.random(count: 32)))
        #expect(Self.isBroken(try await fixture.store.verifyAuditChain()))
    }

    @Test func cuttingOffTheLastEventAndMovingTheHeadBackIsDetected() async throws {
        let fixture = try await fixtureWithEvents()
        switch fixture.engine {
        case .sqlite:
            let fourth = try #require(try await fixture.sql.queryOne("SELECT hash FROM audit_events WHERE seq = 4")).blob("hash")
            try await fixture.sql.runAll([
                "DELETE FROM audit_events WHERE seq = 5",
                // The head names the new last event; its tag cannot be made without the key.
                "UPDATE meta SET value = \("4:" + Encoding.hex(fourth)) WHERE key = 'audit_head'",
            ])
        case .postgres:
            // Merchant a's chain loses its last event; its head is moved back the same way.
            let merchant = try #require(try await fixture.store.merchant(named: "a"))
            _ = try await fixture.merchants.issueKey(merchantName: "a", role: .readonly, actor: "test")
            let first = try #require(try await fixture.sql.queryOne(
                """
                SELECT hash FROM audit_events WHERE chain = \(merchant.id) AND chain_seq = 1
                """))
                .blob("hash")
            try await fixture.sql.runAll([
                "DELETE FROM audit_events WHERE chain = \(merchant.id) AND chain_seq = 2",
                """
                UPDATE audit_chains SET last_seq = 1, last_hash = \(first), head = \("1:" + Encoding.hex(first))
                    WHERE chain = \(merchant.id)
                """,
            ])
        }
        Self.expectBroken(
            try await fixture.store.verifyAuditChain(), 5, "the chain ends before the recorded head (events were deleted from the end)")
    }

    @Test(.sqliteOnly("audit_keyed_from marks where SQLite's chain, once unkeyed, became keyed; PostgreSQL chains were keyed from their first event"))
    func declaringTheWholeChainUnkeyedIsDetected() async throws {
        let fixture = try await fixtureWithEvents()
        try await Self.recompute(fixture, with: .unkeyedSHA256)
        // An attacker claims every event predates the keyed chain (written by an older build).
        try await fixture.sql.run("INSERT INTO meta (key, value) VALUES ('audit_keyed_from', \("6:" + Encoding.hex(RandomBytes.make(32))))")
        #expect(try await fixture.store.verifyAuditChain() == .broken(sequence: 1, reason: "the recorded start of the keyed chain is not authentic"))
    }

    @Test func removingTheAuditKeyAfterRecomputingTheChainUnkeyedIsRefusedAtStart() async throws {
        let fixture = try await fixtureWithEvents()
        try await fixture.sql.runAll(["DELETE FROM audit_events WHERE seq = 3", "DELETE FROM system_keys"])
        try await Self.recompute(fixture, with: .unkeyedSHA256)
        if fixture.engine == .sqlite {
            let head = try #require(try await fixture.sql.queryOne("SELECT value FROM meta WHERE key = 'audit_head'")).string("value")
            try await fixture.sql.run(
                """
                UPDATE meta SET value = \(head.split(separator: ":").prefix(2).joined(separator: ":")) WHERE key = 'audit_head'
                """)
        }
        // The chain now looks like one written before the keyed chain: no server keys it on its own.
        let reopened = try await fixture.openAnother()
        defer { TestDatabase.close(reopened) }
        let keyring = Keyring(masterKeys: fixture.ring, store: reopened)
        await #expect(throws: AuditChainError.unkeyedEvents(count: 4)) { try await keyring.verifyMasterKey() }
        #expect(AuditChainError.unkeyedEvents(count: 4).description.contains("vault audit upgrade"))
    }

    @Test func theAuditKeyIsWrappedByTheMasterKeyAndSurvivesItsRotation() async throws {
        let fixture = try await fixtureWithEvents()
        let stored = try #require(try await fixture.sql.queryOne("SELECT kek_version, wrapped_key FROM system_keys WHERE purpose = 'audit'"))
        #expect(try stored.int("kek_version") == 1)
        let rotated = try fixture.ring.addingNewVersion()
        let keyring = fixture.reopened(with: rotated)
        try await keyring.verifyMasterKey()
        _ = try await keyring.rewrapAll(actor: "test")
        #expect(try await fixture.sql.queryOne("SELECT kek_version FROM system_keys")?.int("kek_version") == 2)
        #expect(try await fixture.store.wrappedKeyCounts()[1] == nil)
        // A process holding only the new master key verifies old and new events.
        let reopened = try await fixture.openAnother()
        defer { TestDatabase.close(reopened) }
        let onlyNew = Keyring(masterKeys: rotated.removing(versionsBelow: 2), store: reopened)
        try await onlyNew.verifyMasterKey()
        try await reopened.appendAudit(AuditEntry(merchantID: nil, actor: "test", action: "test.after_rotation", objectType: "test", objectID: nil))
        #expect(try await reopened.verifyAuditChain() == .intact(events: 8))
    }

    @Test(.sqliteOnly("builds a database as an older SQLite build left it (migrations before 13, an unkeyed chain); PostgreSQL databases never held unkeyed chains"))
    func aDatabaseWithAnUnkeyedChainIsAnchoredAtUpgradeAndStillChecked() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.sqlite")
        // A database as an older build left it: migrations before 13, an unkeyed SHA-256 chain.
        let old = try SQLiteDatabase(path: path, migrations: Schema.migrations.filter { $0.id < 13 })
        try old.writeNow { connection in
            var previous = AuditChain.genesis
            for sequence in Int64(1)...3 {
                let event = PendingAuditEvent(AuditEntry(merchantID: nil, actor: "cli", action: "old.event", objectType: "test", objectID: "o\(sequence)"))
                let hash = AuditChain.hash(
                    previous: previous, sequence: sequence, id: event.id, occurredAt: event.occurredAt, merchantID: nil, actor: event.actor,
                    action: event.action, objectType: event.objectType, objectID: event.objectID, details: event.details)
                try connection.run(
                    """
                    INSERT INTO audit_events (seq, id, occurred_at, merchant_id, actor, action, object_type, object_id, details, prev_hash, hash)
                    VALUES (\(sequence), \(event.id), \(event.occurredAt), NULL, \(event.actor), \(event.action), \(event.objectType),
                        \(event.objectID), \(event.details), \(previous), \(hash))
                    """)
                previous = hash
            }
            try connection.run("INSERT INTO meta (key, value) VALUES ('audit_head', \("3:" + Encoding.hex(previous)))")
        }
        old.close()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let keyring = Keyring(masterKeys: try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)]), store: store)
        await #expect(throws: AuditChainError.unkeyedEvents(count: 3)) { try await keyring.verifyMasterKey() }
        try await keyring.verifyMasterKey(upgradingUnkeyedAuditChain: true)
        // The first keyed event (the master key's registration) links to the unkeyed head.
        #expect(try await store.verifyAuditChain() == .intact(events: 4))
        #expect(try await store.auditEvents(merchantID: nil, before: nil, limit: 1).first?.action == "keys.kek_registered")
        // Recomputing the unkeyed prefix after an edit no longer matches the keyed event after it.
        try store.database.writeNow { connection in
            try connection.run("UPDATE audit_events SET actor = 'someone-else' WHERE seq = 2")
            var previous = try #require(try connection.queryOne("SELECT hash FROM audit_events WHERE seq = 1")).blob("hash")
            for row in try connection.query("SELECT * FROM audit_events WHERE seq IN (2, 3) ORDER BY seq") {
                let link = try Forgery.unkeyedSHA256.link(previous: previous, row)
                try connection.run("UPDATE audit_events SET prev_hash = \(previous), hash = \(link) WHERE seq = \(row.int64("seq"))")
                previous = link
            }
        }
        #expect(try await store.verifyAuditChain() == .broken(sequence: 4, reason: "does not link to the event before it"))
        withExtendedLifetime(keyring) {}
    }

    @Test(.sqliteOnly("builds a database as an older SQLite build left it (migrations before 13, an unkeyed chain); PostgreSQL databases never held unkeyed chains"))
    func anUnkeyedChainThatDoesNotVerifyIsNotUpgraded() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.sqlite")
        let old = try SQLiteDatabase(path: path, migrations: Schema.migrations.filter { $0.id < 13 })
        try old.writeNow { connection in
            let event = PendingAuditEvent(AuditEntry(merchantID: nil, actor: "cli", action: "old.event", objectType: "test", objectID: nil))
            try connection.run(
                """
                INSERT INTO audit_events (seq, id, occurred_at, merchant_id, actor, action, object_type, object_id, details, prev_hash, hash)
                VALUES (1, \(event.id), \(event.occurredAt), NULL, \(event.actor), \(event.action), \(event.objectType), NULL,
                    \(event.details), \(AuditChain.genesis), \(RandomBytes.make(32)))
                """)
        }
        old.close()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let keyring = Keyring(masterKeys: try MasterKeyRing(keys: [1: SecureBytes.random(count: 32)]), store: store)
        await #expect(throws: AuditChainError.unkeyedChainBroken(sequence: 1, reason: "its contents do not match its hash (edited)")) {
            try await keyring.verifyMasterKey(upgradingUnkeyedAuditChain: true)
        }
        #expect(try store.database.readNow { try $0.queryOne("SELECT count(*) AS n FROM system_keys")?.int("n") } == 0)
    }
}
