import Foundation
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// A rolling upgrade: a server of a build before chain bindings appends keyed events without
/// advancing the chain's binding row, on the run's engine. The binding then trails its chain, and
/// the chain still passes through the bound head: `verifyAuditChain` accepts that (the events after
/// it carry keyed links only a holder of the audit key writes), and the next append by this build
/// brings the binding up to the chain's end. A binding ahead of its chain still fails
/// (`AuditChainBindingConformanceTests`).
@Suite("Store conformance: audit chain bindings across a rolling upgrade")
struct AuditChainRollingUpgradeConformanceTests {
    typealias Bindings = AuditChainBindingConformanceTests

    /// Appends `count` events as a server of an earlier build does: the chain grows, its binding
    /// row stays where it was.
    static func appendAsAnEarlierBuild(_ fixture: StoreFixture, count: Int) async throws {
        let chain = Bindings.chain(of: fixture)
        try await fixture.sql.run("CREATE TABLE saved_binding AS SELECT * FROM audit_chain_bindings WHERE chain = \(chain)")
        for index in 0..<count {
            try await fixture.store.appendAudit(AuditConformanceTests.entry(fixture.merchantID, objectID: "earlier-\(index)"))
        }
        try await fixture.sql.run(
            """
            UPDATE audit_chain_bindings SET events = (SELECT events FROM saved_binding), head = (SELECT head FROM saved_binding),
                mac = (SELECT mac FROM saved_binding)
            WHERE chain = \(chain)
            """)
        try await fixture.sql.run("DROP TABLE saved_binding")
    }

    static func boundEvents(_ fixture: StoreFixture) async throws -> Int64 {
        try #require(try await fixture.sql.queryOne("SELECT events FROM audit_chain_bindings WHERE chain = \(Bindings.chain(of: fixture))"))
            .int64("events")
    }

    static func chainEvents(_ fixture: StoreFixture) async throws -> Int {
        fixture.sql.engine == .sqlite
            ? try await fixture.count("SELECT count(*) AS n FROM audit_events")
            : try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE chain = \(fixture.merchantID)")
    }

    @Test func eventsAnEarlierBuildAppendedVerifyAndTheNextAppendBringsTheBindingUp() async throws {
        let fixture = try await Bindings.fixture()
        let before = try await Self.boundEvents(fixture)
        try await Self.appendAsAnEarlierBuild(fixture, count: 2)
        #expect(try await Self.boundEvents(fixture) == before, "the binding trails its chain")
        let trailing = try await fixture.store.verifyAuditChain()
        if case .broken(_, let reason) = trailing { Issue.record("a chain an earlier build appended to did not verify: \(reason)") }

        try await fixture.store.appendAudit(AuditConformanceTests.entry(fixture.merchantID, objectID: "this-build"))
        #expect(try await Self.boundEvents(fixture) == Int64(try await Self.chainEvents(fixture)), "bound to the chain's end again")
        let caughtUp = try await fixture.store.verifyAuditChain()
        if case .broken(_, let reason) = caughtUp { Issue.record("the caught-up chain did not verify: \(reason)") }
    }
}
