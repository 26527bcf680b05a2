import Foundation
import PropertyBased
import StorageTestSupport
import Testing
@testable import Vault
@testable import VaultSQLite
import Scheduler

@Suite struct AuditChainTests {
    private func fixtureWithEvents() async throws -> VaultFixture {
        let fixture = try await VaultFixture()
        for name in ["a", "b", "c"] {
            _ = try await fixture.merchants.create(name: name, role: .admin, settings: .init(), actor: "test")
        }
        return fixture
    }

    /// Checks a break: SQLite has one chain, so the sequence and reason are exact; PostgreSQL has one
    /// chain per merchant, so its reason names the chain first and the place is within that chain.
    static func expectBroken(
        _ verification: AuditVerification, sqlite: (sequence: Int64, reason: String), postgresReason: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .broken(let sequence, let reason) = verification else {
            Issue.record("the tampering was not detected: \(verification)", sourceLocation: sourceLocation)
            return
        }
        switch TestEngine.current {
        case .sqlite: #expect(sequence == sqlite.sequence && reason == sqlite.reason, sourceLocation: sourceLocation)
        case .postgres: #expect(reason.hasPrefix("chain ") && reason.hasSuffix(postgresReason), "\(reason)", sourceLocation: sourceLocation)
        }
    }

    @Test func anUntouchedChainVerifies() async throws {
        let fixture = try await fixtureWithEvents()
        #expect(try await fixture.store.verifyAuditChain() == .intact(events: 4))
    }

    @Test func anEditedEventBreaksTheChainAtThatEvent() async throws {
        let fixture = try await fixtureWithEvents()
        try await fixture.sql.run("UPDATE audit_events SET actor = 'mallory' WHERE seq = 3")
        Self.expectBroken(
            try await fixture.store.verifyAuditChain(), sqlite: (3, "its contents do not match its hash (edited)"),
            postgresReason: "its contents do not match its hash (edited)")
    }

    @Test func aDeletedMiddleEventIsDetected() async throws {
        let fixture = try await fixtureWithEvents()
        try await fixture.sql.run("DELETE FROM audit_events WHERE seq = 2")
        // PostgreSQL: the event was its merchant's only one, so that chain's head names a gone event.
        Self.expectBroken(
            try await fixture.store.verifyAuditChain(), sqlite: (2, "event 2 is missing"), postgresReason: "the recorded head names events that are gone")
    }

    @Test func aDeletedLastEventIsDetected() async throws {
        let fixture = try await fixtureWithEvents()
        try await fixture.sql.run("DELETE FROM audit_events WHERE seq = 4")
        Self.expectBroken(
            try await fixture.store.verifyAuditChain(), sqlite: (4, "the chain ends before the recorded head (events were deleted from the end)"),
            postgresReason: "the recorded head names events that are gone")
    }

    @Test func aRecomputedForgeryStillBreaksTheLink() async throws {
        let fixture = try await fixtureWithEvents()
        try await fixture.sql.run("UPDATE audit_events SET hash = \([UInt8](repeating: 0, count: 32)) WHERE seq = 2")
        #expect(try await fixture.store.verifyAuditChain() != .intact(events: 4))
    }

    @Test func eventsAreListedNewestFirstPerMerchant() async throws {
        let fixture = try await fixtureWithEvents()
        guard let merchant = try await fixture.store.merchant(named: "b") else {
            Issue.record("merchant b missing")
            return
        }
        _ = try await fixture.merchants.issueKey(merchantName: "b", role: .readonly, actor: "test")
        let events = try await fixture.store.auditEvents(merchantID: merchant.id, before: nil, limit: 10)
        #expect(events.map(\.action) == ["api_key.created", "merchant.created"])
        let older = try await fixture.store.auditEvents(merchantID: merchant.id, before: events[0].sequence, limit: 10)
        #expect(older.map(\.action) == ["merchant.created"])
    }

    /// The chain's message format as first written: every field as `<byte count>:<bytes>` after
    /// the previous hash. Stored chains must keep verifying, so the format can never change.
    static func referenceHash(previous: [UInt8], fields: [String]) -> [UInt8] {
        var message = previous
        for field in fields {
            let bytes = Array(field.utf8)
            message.append(contentsOf: Array(String(bytes.count).utf8))
            message.append(0x3A)
            message.append(contentsOf: bytes)
        }
        return Digest.sha256(message)
    }

    @Test func theHashKeepsTheFormatStoredChainsWereWrittenIn() async {
        await propertyCheck(count: 200, input: Gen.int(in: 1...Int(Int32.max)), Gen.character(in: " "..."~").string(of: 0...40), Gen.bool) { sequence, text, absent in
            let previous = Digest.sha256(Array(text.utf8))
            let merchantID: String? = absent ? nil : "mer_" + text
            let objectID: String? = absent ? "obj é" + text : nil
            let fields = [String(sequence), "ae_" + text, "2027-03-01T00:00:00.000Z", merchantID ?? "\u{0}", "actor✓", text, "type",
                          objectID ?? "\u{0}", "{\"k\":\"" + text + "\"}"]
            let hash = AuditChain.hash(
                previous: previous, sequence: Int64(sequence), id: fields[1], occurredAt: fields[2], merchantID: merchantID, actor: fields[4],
                action: fields[5], objectType: fields[6], objectID: objectID, details: fields[8])
            #expect(hash == Self.referenceHash(previous: previous, fields: fields))
        }
    }
}
