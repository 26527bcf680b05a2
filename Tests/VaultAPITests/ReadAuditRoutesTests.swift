import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// Every API read of card data names the API key that asked, in the audit log.
@Suite struct ReadAuditRoutesTests {
    @Test func retrievalListAndSearchThroughTheAPIAreAuditedUnderTheCallersKey() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let registered = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("ref-1", verify: false))
            #expect(registered.status == .created)
            let retrieved = try await client.send(.get, "/v1/secure-cards/ref-1", key: fixture.readonlyA)
            #expect(retrieved.status == .ok)
            let listed = try await client.send(.get, "/v1/secure-cards", key: fixture.readonlyA)
            #expect(listed.status == .ok)
            let searched = try await client.send(.get, "/v1/secure-cards?q=ref", key: fixture.readonlyA)
            #expect(searched.status == .ok)
            let missing = try await client.send(.get, "/v1/secure-cards/missing", key: fixture.readonlyA)
            #expect(missing.status == .notFound)
        }
        // Reads are audited just after they answer: SQLite writes them before the next write;
        // PostgreSQL in a transaction of its own, awaited here until the three are there.
        if let sqlite = fixture.runtime.store as? SQLiteStore { try await sqlite.database.write { _ in } }
        let store = fixture.runtime.store
        func readEvents(_ events: [AuditEvent]) -> [AuditEvent] {
            events.filter { $0.action.hasPrefix("secure_card.") && $0.action != "secure_card.registered" }
        }
        var events = try await store.auditEvents(merchantID: fixture.merchantA.id, before: nil, limit: 20)
        for _ in 0..<200 where readEvents(events).count < 3 {
            try await Task.sleep(for: .milliseconds(50))
            events = try await store.auditEvents(merchantID: fixture.merchantA.id, before: nil, limit: 20)
        }
        let reads = readEvents(events)
        #expect(Set(reads.map(\.action)) == ["secure_card.retrieved", "secure_card.listed", "secure_card.searched"])
        #expect(reads.count == 3)
        let registeredBy = try #require(events.first { $0.action == "secure_card.registered" }?.actor)
        #expect(reads.allSatisfy { $0.actor.hasPrefix("apikey:") && $0.actor != registeredBy })
        let total = Int64(try await fixture.count("audit_events"))
        #expect(try await store.verifyAuditChain() == .intact(events: total))
    }
}
