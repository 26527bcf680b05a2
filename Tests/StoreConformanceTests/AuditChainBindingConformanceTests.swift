import Foundation
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// Every audit chain has a binding row (`AuditChainBinding`) advanced with each append, on the
/// run's engine: a chain deleted whole in SQL (its events and the engine's own head record) fails
/// `verifyAuditChain`, as do a binding row removed while events remain and one edited; the
/// untouched chains verify; the chain of an earlier build is bound once at start-up.
@Suite("Store conformance: audit chain bindings")
struct AuditChainBindingConformanceTests {
    /// A fixture whose merchant's chain holds `count` more events, and one event of no merchant.
    static func fixture(events count: Int = 4) async throws -> StoreFixture {
        let fixture = try await StoreFixture()
        for index in 0..<count { try await fixture.store.appendAudit(AuditConformanceTests.entry(fixture.merchantID, objectID: "obj-\(index)")) }
        try await fixture.store.appendAudit(AuditConformanceTests.entry(nil, objectID: "platform"))
        return fixture
    }

    /// The chain the fixture's merchant's events are on: SQLite has one chain for everything.
    static func chain(of fixture: StoreFixture) -> String {
        fixture.sql.engine == .sqlite ? AuditChainBinding.singleChain : fixture.merchantID
    }

    static func expectBroken(_ fixture: StoreFixture, saying words: String, _ comment: Comment) async throws {
        let verification = try await fixture.store.verifyAuditChain()
        guard case .broken(_, let reason) = verification else {
            Issue.record("\(comment): the chain verified (\(verification))")
            return
        }
        #expect(reason.contains(words), "\(comment): \(reason)")
    }

    @Test func everyChainIsBoundAsItStandsAndVerifies() async throws {
        let fixture = try await Self.fixture()
        guard case .intact = try await fixture.store.verifyAuditChain() else {
            Issue.record("an untouched chain did not verify")
            return
        }
        let sqlite = fixture.sql.engine == .sqlite
        let chains = sqlite ? 1 : try await fixture.count("SELECT count(DISTINCT chain) AS n FROM audit_events")
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_chain_bindings WHERE mac IS NOT NULL") == chains)
        let bound = try #require(try await fixture.sql.queryOne("SELECT events FROM audit_chain_bindings WHERE chain = \(Self.chain(of: fixture))"))
        let events =
            if sqlite { try await fixture.count("SELECT count(*) AS n FROM audit_events") } else {
                try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE chain = \(fixture.merchantID)")
            }
        #expect(try bound.int64("events") == Int64(events))
    }

    @Test func aChainDeletedWholeWithItsHeadRecordFailsVerification() async throws {
        let fixture = try await Self.fixture()
        if fixture.sql.engine == .sqlite {
            try await fixture.sql.runAll(["DELETE FROM audit_events", "DELETE FROM meta WHERE key = 'audit_head'"])
        } else {
            try await fixture.sql.runAll([
                "DELETE FROM audit_events WHERE chain = \(fixture.merchantID)", "DELETE FROM audit_chains WHERE chain = \(fixture.merchantID)",
            ])
        }
        try await Self.expectBroken(fixture, saying: "the whole chain was deleted", "a chain deleted whole")
        // Appending afterwards starts the chain again from nothing; its binding stays as it was.
        try await fixture.store.appendAudit(AuditConformanceTests.entry(fixture.merchantID, objectID: "after"))
        try await Self.expectBroken(fixture, saying: "bound to", "a chain deleted whole, then appended to")
    }

    @Test(.enabled(if: TestEngine.current == .postgres, "PostgreSQL's head row reset to nothing; SQLite's head record is the meta row deleted above"))
    func aChainEmptiedWithItsHeadRecordResetFailsVerification() async throws {
        let fixture = try await Self.fixture()
        try await fixture.sql.runAll([
            "DELETE FROM audit_events WHERE chain = \(fixture.merchantID)",
            "UPDATE audit_chains SET last_seq = 0, head = NULL WHERE chain = \(fixture.merchantID)",
        ])
        try await Self.expectBroken(fixture, saying: "the whole chain was deleted", "a chain emptied and its head reset")
    }

    @Test func aBindingRowRemovedWhileEventsRemainFailsVerification() async throws {
        let fixture = try await Self.fixture()
        try await fixture.sql.run("DELETE FROM audit_chain_bindings WHERE chain = \(Self.chain(of: fixture))")
        try await Self.expectBroken(fixture, saying: "binding row is gone", "a binding row removed")
        // The next append does not re-create it.
        try await fixture.store.appendAudit(AuditConformanceTests.entry(fixture.merchantID, objectID: "after"))
        try await Self.expectBroken(fixture, saying: "binding row is gone", "a binding row removed, then appended to")
    }

    @Test func aBindingRowEditedToMatchAShortenedChainFailsVerification() async throws {
        let fixture = try await Self.fixture()
        try await fixture.sql.run("UPDATE audit_chain_bindings SET events = events - 1 WHERE chain = \(Self.chain(of: fixture))")
        try await Self.expectBroken(fixture, saying: "not authentic", "a binding row edited")
    }

    /// A database of an earlier build: its chains' rows were copied without a MAC by the migration.
    /// Start-up binds a row whose count and head the keyed head record confirms; a row that does
    /// not match stays unbound and fails verification; rows deleted are never re-created.
    @Test func theChainsOfAnEarlierBuildAreBoundOnceWhenTheirHeadRecordConfirmsThem() async throws {
        let fixture = try await Self.fixture()
        let chain = Self.chain(of: fixture)
        try await fixture.sql.run("UPDATE audit_chain_bindings SET mac = NULL")
        try await Self.expectBroken(fixture, saying: "not authentic", "an unbound row")
        let rows = try await fixture.count("SELECT count(*) AS n FROM audit_chain_bindings")
        #expect(try await fixture.store.bindLegacyAuditChains() == rows)
        #expect(try await fixture.store.bindLegacyAuditChains() == 0)
        guard case .intact = try await fixture.store.verifyAuditChain() else {
            Issue.record("the chains bound at start did not verify")
            return
        }
        // An unbound row whose count the head record does not confirm stays unbound.
        try await fixture.sql.run("UPDATE audit_chain_bindings SET mac = NULL, events = events + 1 WHERE chain = \(chain)")
        #expect(try await fixture.store.bindLegacyAuditChains() == 0)
        try await Self.expectBroken(fixture, saying: "not authentic", "an unbound row the head record does not confirm")
        // A deleted row is not re-created.
        try await fixture.sql.run("DELETE FROM audit_chain_bindings WHERE chain = \(chain)")
        #expect(try await fixture.store.bindLegacyAuditChains() == 0)
        try await Self.expectBroken(fixture, saying: "binding row is gone", "a binding row removed")
    }
}
