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

/// `GET /v1/audit-events` filters: exact `actor`, `action`, `objectType`, `objectId`, and an inclusive
/// range of instants `from`/`to`; admin keys only.
@Suite struct AuditFilterTests {
    /// Merchant A's events after appending a known set (merchant and key creation come first).
    static func seeded() async throws -> APIFixture {
        let fixture = try await APIFixture()
        let entries: [(String, String, String, String)] = [
            ("apikey:one", "secure_card.registered", "secure_card", "sc_1"),
            ("apikey:one", "secure_card.updated", "secure_card", "sc_1"),
            ("apikey:two", "secure_card.registered", "secure_card", "sc_2"),
            ("runner", "transaction.sale", "transaction", "txn_1"),
            ("apikey:two", "schedule.created", "schedule", "sch_1"),
        ]
        for (actor, action, objectType, objectID) in entries {
            try await fixture.runtime.store.appendAudit(
                AuditEntry(merchantID: fixture.merchantA.id, actor: actor, action: action, objectType: objectType, objectID: objectID))
        }
        try await fixture.runtime.store.appendAudit(
            AuditEntry(merchantID: fixture.merchantB.id, actor: "apikey:one", action: "secure_card.registered", objectType: "secure_card", objectID: "sc_1"))
        return fixture
    }

    static func events(_ response: TestResponse) -> [[String: Any]] { response.json["data"] as? [[String: Any]] ?? [] }

    static func pairs(_ response: TestResponse) -> [String] {
        events(response).map { "\($0["actor"] as? String ?? "?") \($0["action"] as? String ?? "?")" }
    }

    @Test(arguments: [
        ("actor=apikey:one", ["apikey:one secure_card.updated", "apikey:one secure_card.registered"]),
        ("action=secure_card.registered", ["apikey:two secure_card.registered", "apikey:one secure_card.registered"]),
        ("objectType=transaction", ["runner transaction.sale"]),
        ("objectId=sc_1", ["apikey:one secure_card.updated", "apikey:one secure_card.registered"]),
        ("actor=apikey:two&objectType=schedule", ["apikey:two schedule.created"]),
        ("actor=apikey:two&action=secure_card.updated", []),
        ("actor=nobody", []),
    ])
    func exactFiltersSelectTheirEventsNewestFirst(query: String, expected: [String]) async throws {
        let fixture = try await Self.seeded()
        try await fixture.live { client in
            let response = try await client.send(.get, "/v1/audit-events?limit=100&" + query, key: fixture.adminA)
            #expect(response.status == .ok, "\(response.text)")
            #expect(Self.pairs(response) == expected, "\(query)")
        }
    }

    @Test func fromAndToAreAnInclusiveRangeOfInstants() async throws {
        let fixture = try await Self.seeded()
        try await fixture.live { client in
            let all = Self.events(try await client.send(.get, "/v1/audit-events?limit=100", key: fixture.adminA))
            let instants = all.compactMap { $0["occurredAt"] as? String }
            #expect(instants.count == all.count && all.count >= 5)
            let sorted = instants.sorted()
            let low = sorted[1]
            let high = sorted[sorted.count - 2]
            let ranged = Self.events(try await client.send(.get, "/v1/audit-events?limit=100&from=\(low)&to=\(high)", key: fixture.adminA))
            #expect(ranged.compactMap { $0["id"] as? String } == all.filter {
                guard let at = $0["occurredAt"] as? String else { return false }
                return at >= low && at <= high
            }.compactMap { $0["id"] as? String })
            let exact = Self.events(try await client.send(.get, "/v1/audit-events?limit=100&from=\(high)&to=\(high)", key: fixture.adminA))
            #expect(!exact.isEmpty && exact.allSatisfy { $0["occurredAt"] as? String == high })
            let future = try await client.send(.get, "/v1/audit-events?from=2999-01-01T00:00:00%2B02:00", key: fixture.adminA)
            #expect(future.status == .ok && Self.events(future).isEmpty)
        }
    }

    @Test func aCursorContinuesTheFilteredListing() async throws {
        let fixture = try await Self.seeded()
        try await fixture.live { client in
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await client.send(
                    .get, "/v1/audit-events?limit=1&objectType=secure_card" + (cursor.map { "&cursor=\($0)" } ?? ""), key: fixture.adminA)
                seen += Self.pairs(page)
                cursor = page.json["nextCursor"] as? String
            } while cursor != nil && seen.count < 10
            #expect(seen == ["apikey:two secure_card.registered", "apikey:one secure_card.updated", "apikey:one secure_card.registered"])
        }
    }

    @Test(arguments: [("from=yesterday", "from"), ("to=2027-13-01T00:00:00Z", "to"), ("from=2027-03-02T00:00:00Z&to=2027-03-01T00:00:00Z", "to"),
                      ("actor=" + String(repeating: "a", count: 201), "actor"), ("cursor=nonsense", "cursor")])
    func malformedFiltersAre422NamingTheParameter(query: String, param: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.get, "/v1/audit-events?" + query, key: fixture.adminA)
            #expect(response.status == .unprocessableContent, "\(query): \(response.text)")
            #expect(response.error["param"] as? String == param)
        }
    }

    @Test func onlyAdminKeysReadTheTrailAndOnlyTheirMerchants() async throws {
        let fixture = try await Self.seeded()
        try await fixture.live { client in
            for key in [fixture.readonlyA, fixture.runnerA] {
                let refused = try await client.send(.get, "/v1/audit-events?actor=apikey:one", key: key)
                #expect(refused.status == .forbidden)
                #expect(refused.error["type"] as? String == "permission_error")
            }
            let other = try await client.send(.get, "/v1/audit-events?actor=apikey:one&limit=100", key: fixture.adminB)
            #expect(Self.pairs(other) == ["apikey:one secure_card.registered"])
            #expect(Self.events(other).allSatisfy { $0["merchantId"] as? String == fixture.merchantB.id })
        }
    }
}
