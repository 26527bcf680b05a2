import Foundation
import Scheduler
import StorageTestSupport
import Testing
import Vault
import VaultSQLite

/// `AuditStore` appends and reads, on the run's engine: the chain verifies after appends, also
/// after many appended at once from two stores on one database; an edited or deleted event breaks
/// it; pages of events, newest first, give every matching event once.
@Suite("Store conformance: audit chain")
struct AuditConformanceTests {
    static func entry(_ merchantID: String?, action: String = "test.event", objectID: String) -> AuditEntry {
        AuditEntry(merchantID: merchantID, actor: "cli", action: action, objectType: "t", objectID: objectID)
    }

    @Test func appendedEventsKeepTheChainIntact() async throws {
        let fixture = try await StoreFixture()
        guard case .intact(let before) = try await fixture.store.verifyAuditChain() else {
            Issue.record("a fresh chain did not verify")
            return
        }
        for index in 0..<10 { try await fixture.store.appendAudit(Self.entry(fixture.merchantID, objectID: "\(index)")) }
        try await fixture.store.appendAudit(Self.entry(nil, objectID: "system"))
        #expect(try await fixture.store.verifyAuditChain() == .intact(events: before + 11))
        #expect(try await fixture.store.auditChainHead() != nil)
    }

    @Test func concurrentAppendsFromTwoStoresKeepTheChainIntact() async throws {
        let fixture = try await StoreFixture()
        let (other, _) = try await fixture.merchants.create(name: "other", role: .admin, settings: .init(), actor: "test")
        let merchants = [fixture.merchantID, other.id, "mer_three"]
        guard case .intact(let before) = try await fixture.store.verifyAuditChain() else {
            Issue.record("a fresh chain did not verify")
            return
        }
        try await fixture.withAnotherStore { second in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (server, store) in [fixture.store, second].enumerated() {
                    for worker in 0..<4 {
                        group.addTask {
                            for index in 0..<50 {
                                let merchant = merchants[(worker + index) % merchants.count]
                                try await store.appendAudit(AuditEntry(
                                    merchantID: merchant, actor: "server\(server)", action: "test.event", objectType: "t", objectID: "\(worker)-\(index)"))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await second.verifyAuditChain() == .intact(events: before + 400))
        }
        #expect(try await fixture.store.verifyAuditChain() == .intact(events: before + 400))
        #expect(try await fixture.count("SELECT count(*) AS n FROM audit_events WHERE action = 'test.event'") == 400)
    }

    @Test func anEditedEventBreaksTheChain() async throws {
        let fixture = try await StoreFixture()
        for index in 0..<5 { try await fixture.store.appendAudit(Self.entry(fixture.merchantID, objectID: "obj-\(index)")) }
        try await fixture.sql.run("UPDATE audit_events SET object_id = 'edited' WHERE object_id = 'obj-2'")
        guard case .broken = try await fixture.store.verifyAuditChain() else {
            Issue.record("an edited chain verified")
            return
        }
    }

    @Test func anEventDeletedFromTheEndBreaksTheChain() async throws {
        let fixture = try await StoreFixture()
        for index in 0..<5 { try await fixture.store.appendAudit(Self.entry(fixture.merchantID, objectID: "obj-\(index)")) }
        try await fixture.sql.run("DELETE FROM audit_events WHERE object_id = 'obj-4'")
        guard case .broken = try await fixture.store.verifyAuditChain() else {
            Issue.record("a chain with its last event deleted verified")
            return
        }
    }

    @Test func pagesOfEventsNewestFirstGiveEveryMatchingEventOnceWhileOthersAreAppended() async throws {
        let fixture = try await StoreFixture()
        for index in 0..<45 {
            try await fixture.store.appendAudit(Self.entry(fixture.merchantID, action: index % 3 == 0 ? "picked" : "other", objectID: "\(index)"))
        }
        let filter = AuditFilter(action: "picked")
        var seen: [String] = []
        var cursor: Int64?
        while true {
            let page = try await fixture.store.auditEvents(merchantID: fixture.merchantID, filter: filter, before: cursor, limit: 4)
            if page.isEmpty { break }
            #expect(page.map(\.sequence) == page.map(\.sequence).sorted(by: >))
            seen += page.compactMap(\.objectID)
            cursor = page.last?.sequence
            // Events appended between pages are newer than the cursor: they never shift a page.
            try await fixture.store.appendAudit(Self.entry(fixture.merchantID, action: "picked", objectID: "late-\(seen.count)"))
        }
        #expect(seen == stride(from: 42, through: 0, by: -3).map(String.init))
        #expect(try await fixture.store.auditEvents(merchantID: "mer_other", filter: filter, before: nil, limit: 100).isEmpty)
    }
}
