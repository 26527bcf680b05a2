import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

@Suite struct ScheduleRoutesTests {
    static func monthly(_ card: String = "cust-1", extra: String = "") -> String {
        """
        {"merchantReference": "\(card)", "amount": 1999, "currency": "USD", "description": "Gym", "type": "monthly",
         "startDate": "2030-01-31", "endType": "count", "endCount": 3, "day": 31, "hour": 9, "minute": 0,
         "timeZone": "America/New_York"\(extra)}
        """
    }

    private func withCard(_ body: @escaping @Sendable (APIFixture, any TestClientProtocol) async throws -> Void) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let card = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1"))
            #expect(card.status == .created)
            try await body(fixture, client)
        }
    }

    @Test func creatingAScheduleReturnsPendingStepsThatConfirmActivates() async throws {
        try await withCard { fixture, client in
            let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: Self.monthly())
            #expect(created.status == .created, "\(created.text)")
            #expect(created.json["status"] as? String == "pending_confirmation")
            let steps = try #require(created.json["steps"] as? [[String: Any]])
            #expect(steps.map { $0["date"] as? String } == ["2030-01-31", "2030-02-28", "2030-03-31"])
            #expect(steps.first?["dueAt"] as? String == "2030-01-31T14:00:00.000Z")
            #expect(steps.allSatisfy { ($0["id"] as? String)?.hasPrefix("stp_") == true && $0["status"] as? String == "scheduled" })
            #expect(steps.map { $0["amount"] as? Int } == [1999, 1999, 1999])
            let id = try #require(created.json["id"] as? String)

            let confirmed = try await client.send(.post, "/v1/schedules/\(id)/confirm", key: fixture.adminA)
            #expect(confirmed.json["status"] as? String == "active")
            let again = try await client.send(.post, "/v1/schedules/\(id)/confirm", key: fixture.adminA)
            #expect(again.status == .conflict)

            #expect(try await client.send(.post, "/v1/schedules/\(id)/pause", key: fixture.adminA).json["status"] as? String == "paused")
            #expect(try await client.send(.post, "/v1/schedules/\(id)/resume", key: fixture.adminA).json["status"] as? String == "active")
            let cancelled = try await client.send(.post, "/v1/schedules/\(id)/cancel", key: fixture.adminA)
            #expect(cancelled.json["status"] as? String == "cancelled")
            #expect((cancelled.json["steps"] as? [[String: Any]])?.allSatisfy { $0["status"] as? String == "cancelled" } == true)
            #expect(try await client.send(.post, "/v1/schedules/\(id)/resume", key: fixture.adminA).status == .conflict)
        }
    }

    @Test func previewExpandsWithoutSavingOrIds() async throws {
        try await withCard { fixture, client in
            let before = try await fixture.count("schedules")
            let preview = try await client.send(.post, "/v1/schedules/preview", key: fixture.adminA, json: Self.monthly())
            #expect(preview.status == .ok)
            let steps = try #require(preview.json["steps"] as? [[String: Any]])
            #expect(steps.count == 3)
            #expect(steps.allSatisfy { $0["id"] == nil })
            #expect(try await fixture.count("schedules") == before)
            #expect(try await fixture.count("schedule_steps") == 0)
        }
    }

    @Test(arguments: [
        (#", "day": null"#, "day"),
        (#", "amount": 0"#, "amount"),
        (#", "amount": 12.5"#, "amount"),
        (#", "currency": "XYZ""#, "currency"),
        (#", "startDate": "2020-01-01""#, "startDate"),
        (#", "startDate": "2030-02-30""#, "startDate"),
        (#", "endCount": 0"#, "endCount"),
        (#", "endCount": 100000"#, "endCount"),
        (#", "hour": 24"#, "hour"),
        (#", "timeZone": "Mars/Base""#, "timeZone"),
        (#", "type": "fortnightly""#, "type"),
        (#", "merchantReference": "nobody""#, "merchantReference"),
        (#", "receiptEmail": "not-an-email""#, "receiptEmail"),
        (#", "startDate": "2031-01-31""#, "secureCardReference"),
    ])
    func badSchedulesAre422NamingTheFieldAndSaveNothing(override: String, param: String) async throws {
        try await withCard { fixture, client in
            var object = try JSONSerialization.jsonObject(with: Data(Self.monthly().utf8)) as! [String: Any]
            let patch = try JSONSerialization.jsonObject(with: Data(("{" + override.dropFirst(1) + "}").utf8)) as! [String: Any]
            for (key, value) in patch { object[key] = value is NSNull ? nil : value }
            let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            let response = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: body)
            #expect(response.status == .unprocessableContent, "\(response.text)")
            #expect(response.error["param"] as? String == param, "\(response.text)")
            #expect(try await fixture.count("schedules") == 0)
        }
    }

    @Test func aCardExpiringBeforeTheLastStepGivesAWarning() async throws {
        try await withCard { fixture, client in
            let body = Self.monthly().replacingOccurrences(of: "\"endCount\": 3", with: "\"endCount\": 24")
            let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: body)
            #expect(created.status == .created)
            #expect((created.json["warnings"] as? [String])?.first?.hasPrefix("card_expires_before_last_step") == true)
        }
    }

    @Test func changesApplyToFutureStepsAndPlanFieldsCannotChange() async throws {
        try await withCard { fixture, client in
            let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: Self.monthly())
            let id = try #require(created.json["id"] as? String)
            let changed = try await client.send(.patch, "/v1/schedules/\(id)", key: fixture.adminA, json: #"{"amount": 2500, "receiptEmail": "a@example.com"}"#)
            #expect(changed.status == .ok)
            #expect(changed.json["amount"] as? Int == 2500)
            #expect((changed.json["steps"] as? [[String: Any]])?.map { $0["amount"] as? Int } == [2500, 2500, 2500])
            let planChange = try await client.send(.patch, "/v1/schedules/\(id)", key: fixture.adminA, json: #"{"day": 5}"#)
            #expect(planChange.status == .unprocessableContent)
            #expect(planChange.error["param"] as? String == "day")
        }
    }

    @Test func aFutureStepCanBeSkippedOnce() async throws {
        try await withCard { fixture, client in
            let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: Self.monthly())
            let id = try #require(created.json["id"] as? String)
            let stepID = try #require((created.json["steps"] as? [[String: Any]])?[1]["id"] as? String)
            let skipped = try await client.send(.post, "/v1/schedules/\(id)/steps/\(stepID)/skip", key: fixture.adminA)
            #expect((skipped.json["steps"] as? [[String: Any]])?[1]["status"] as? String == "skipped")
            #expect(try await client.send(.post, "/v1/schedules/\(id)/steps/\(stepID)/skip", key: fixture.adminA).status == .conflict)
            #expect(try await client.send(.post, "/v1/schedules/\(id)/steps/stp_nope/skip", key: fixture.adminA).status == .notFound)
            let steps = try await client.send(.get, "/v1/schedules/\(id)/steps", key: fixture.adminA)
            #expect((steps.json["data"] as? [Any])?.count == 3)
        }
    }

    @Test func deletingACardInUseIs409UnlessSchedulesAreCancelled() async throws {
        try await withCard { fixture, client in
            let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: Self.monthly())
            let id = try #require(created.json["id"] as? String)
            let refused = try await client.send(.delete, "/v1/secure-cards/cust-1", key: fixture.adminA)
            #expect(refused.status == .conflict)
            #expect((refused.error["message"] as? String)?.contains(id) == true)
            let deleted = try await client.send(.delete, "/v1/secure-cards/cust-1?cancelSchedules=true", key: fixture.adminA)
            #expect(deleted.status == .ok)
            #expect(deleted.json["cancelledSchedules"] as? [String] == [id])
            #expect(try await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA).json["status"] as? String == "cancelled")
            let onDeleted = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: Self.monthly())
            #expect(onDeleted.status == .unprocessableContent)
        }
    }

    @Test func anotherMerchantsSchedulesAre404AndListsPage() async throws {
        try await withCard { fixture, client in
            var ids: [String] = []
            for _ in 0..<3 {
                let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: Self.monthly())
                ids.append(try #require(created.json["id"] as? String))
            }
            #expect(try await client.send(.get, "/v1/schedules/\(ids[0])", key: fixture.adminB).status == .notFound)
            #expect(try await client.send(.post, "/v1/schedules/\(ids[0])/cancel", key: fixture.adminB).status == .notFound)
            let first = try await client.send(.get, "/v1/schedules?limit=2", key: fixture.adminA)
            let cursor = try #require(first.json["nextCursor"] as? String)
            let second = try await client.send(.get, "/v1/schedules?limit=2&cursor=\(cursor)", key: fixture.adminA)
            let seen = ((first.json["data"] as? [[String: Any]]) ?? []) + ((second.json["data"] as? [[String: Any]]) ?? [])
            #expect(seen.compactMap { $0["id"] as? String } == ids)
            #expect(second.json["nextCursor"] is NSNull)
            let filtered = try await client.send(.get, "/v1/schedules?status=active", key: fixture.adminA)
            #expect((filtered.json["data"] as? [Any])?.isEmpty == true)
            #expect(try await client.send(.get, "/v1/schedules?status=bogus", key: fixture.adminA).status == .unprocessableContent)
            #expect(try await client.send(.get, "/v1/schedules", key: fixture.adminB).json["data"] as? [Any] != nil)
        }
    }

    @Test func theListFiltersByCardTokenAndRefusesAValueThatIsNoToken() async throws {
        try await withCard { fixture, client in
            let other = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-2"))
            let otherToken = try #require(other.json["secureCardReference"] as? String)
            let token = try #require(try await client.send(.get, "/v1/secure-cards/cust-1", key: fixture.adminA).json["secureCardReference"] as? String)
            var mine: [String] = []
            for index in 0..<4 {
                let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: Self.monthly(index % 2 == 0 ? "cust-1" : "cust-2"))
                if index % 2 == 0 { mine.append(try #require(created.json["id"] as? String)) }
            }
            let listed = try await client.send(.get, "/v1/schedules?secureCardReference=\(token)", key: fixture.adminA)
            #expect(listed.status == .ok)
            let rows = (listed.json["data"] as? [[String: Any]]) ?? []
            #expect(rows.compactMap { $0["id"] as? String } == mine)
            #expect(rows.allSatisfy { $0["secureCardReference"] as? String == token })
            let first = try await client.send(.get, "/v1/schedules?secureCardReference=\(token)&limit=1", key: fixture.adminA)
            let cursor = try #require(first.json["nextCursor"] as? String)
            let second = try await client.send(.get, "/v1/schedules?secureCardReference=\(token)&limit=1&cursor=\(cursor)", key: fixture.adminA)
            #expect((second.json["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [mine[1]])
            #expect((try await client.send(.get, "/v1/schedules?secureCardReference=\(otherToken)&status=active", key: fixture.adminA).json["data"] as? [Any])?.isEmpty == true)
            #expect(
                (try await client.send(.get, "/v1/schedules?secureCardReference=\(token)", key: fixture.adminB).json["data"] as? [Any])?.isEmpty == true,
                "another merchant's card lists nothing")
            let bad = try await client.send(.get, "/v1/schedules?secureCardReference=cust-1", key: fixture.adminA)
            #expect(bad.status == .unprocessableContent)
            #expect(bad.error["param"] as? String == "secureCardReference")
            #expect(try await client.send(.get, "/v1/schedules?secureCardReference=\(token)", key: fixture.readonlyA).status == .ok)
        }
    }
}
