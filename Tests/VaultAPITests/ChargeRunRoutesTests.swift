import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Scheduler
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

@Suite struct ChargeRunRoutesTests {
    /// A schedule of one step due at midnight today (UTC), confirmed.
    static func dueToday(_ client: any TestClientProtocol, _ fixture: APIFixture, card: String, amount: Int = 4200) async throws -> String {
        let today = String(Timestamp.string(Date()).prefix(10))
        let created = try await client.send(
            .post, "/v1/schedules", key: fixture.adminA,
            json: #"{"merchantReference": "\#(card)", "amount": \#(amount), "currency": "USD", "type": "delayedOnce", "startDate": "\#(today)", "hour": 0, "minute": 0, "timeZone": "UTC"}"#)
        let id = try #require(created.json["id"] as? String, "\(created.text)")
        _ = try await client.send(.post, "/v1/schedules/\(id)/confirm", key: fixture.adminA)
        return id
    }

    @Test func aRunStartedOverHTTPChargesDueStepsAndReportsItsSummary() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("good", verify: false))
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("bad", verify: false))
            // Confirmation verifies each card (its customer-initiated first use); the "bad" card's
            // number is then replaced, unverified, by one the sandbox declines.
            let good = try await Self.dueToday(client, fixture, card: "good", amount: 4200)
            let bad = try await Self.dueToday(client, fixture, card: "bad", amount: 100)
            let replaced = try await client.send(
                .patch, "/v1/secure-cards/bad", key: fixture.adminA,
                json: #"{"method": "keyed", "card": {"number": "4000000000000002", "expiryDate": "1230"}, "verify": false}"#)
            #expect(replaced.status == .ok, "\(replaced.text)")

            let dry = try await client.send(.post, "/v1/charge-runs", key: fixture.runnerA, json: #"{"dryRun": true}"#)
            #expect(dry.status == .accepted)
            let dryRun = try await ChargeRunPolling.waitForRun(client, key: fixture.runnerA, id: try #require(dry.json["id"] as? String))
            #expect((dryRun["summary"] as? [String: Any]).flatMap { ($0["due"] as? [String: Any])?["count"] as? Int } == 2)
            #expect(try await fixture.count("transactions WHERE step_id IS NOT NULL") == 0)

            let started = try await client.send(.post, "/v1/charge-runs", key: fixture.runnerA)
            #expect(started.status == .accepted)
            #expect(started.json["status"] as? String == "running")
            let finished = try await ChargeRunPolling.waitForRun(client, key: fixture.runnerA, id: try #require(started.json["id"] as? String))
            #expect(finished["status"] as? String == "completed")
            let outcomes = (finished["summary"] as? [String: Any])?["outcomes"] as? [String: [String: Any]]
            #expect(outcomes?["approved"]?["count"] as? Int == 1)
            #expect((outcomes?["approved"]?["totals"] as? [String: Any])?["USD"] as? Int == 4200)
            #expect(outcomes?["failed"]?["count"] as? Int == 1)

            let steps = try await client.send(.get, "/v1/schedules/\(good)/steps", key: fixture.adminA)
            let step = try #require((steps.json["data"] as? [[String: Any]])?.first)
            #expect(step["status"] as? String == "approved")
            let attempts = try #require(step["transactions"] as? [[String: Any]])
            #expect(attempts.count == 1)
            #expect(attempts.first?["status"] as? String == "approved")
            #expect(attempts.first?["attempt"] as? Int == 1)
            #expect(try await client.send(.get, "/v1/schedules/\(good)", key: fixture.adminA).json["status"] as? String == "completed")
            #expect(try await client.send(.get, "/v1/schedules/\(bad)", key: fixture.adminA).json["status"] as? String == "past_due")

            let again = try await client.send(.post, "/v1/charge-runs", key: fixture.adminA)
            let second = try await ChargeRunPolling.waitForRun(client, key: fixture.adminA, id: try #require(again.json["id"] as? String))
            #expect((second["summary"] as? [String: Any]).flatMap { ($0["due"] as? [String: Any])?["count"] as? Int } == 0)
            #expect(try await fixture.count("transactions WHERE step_id IS NOT NULL") == 2)
        }
    }

    @Test func aSecondStartWhileTheMerchantsRunIsRunningIs409NamingItAndStartsNothing() async throws {
        let fixture = try await APIFixture()
        // A run of merchant A in progress on this server (inserted as the route records one).
        let running = ChargeRunRecord(
            id: "run_inprogress", merchantID: fixture.merchantA.id, status: .running, asOf: Date(), dryRun: false,
            startedBy: "apikey:x", startedAt: Date(), owner: RunnerIdentity.process)
        try await fixture.runtime.store.insertChargeRun(
            running, audit: AuditEntry(merchantID: fixture.merchantA.id, actor: "apikey:x", action: "charge_run.started", objectType: "charge_run",
                                       objectID: running.id))
        try await fixture.live { client in
            for key in [fixture.runnerA, fixture.adminA] {
                let refused = try await client.send(.post, "/v1/charge-runs", key: key)
                #expect(refused.status == .conflict)
                #expect(refused.error["code"] as? String == "charge_run_running")
                #expect((refused.error["message"] as? String)?.contains("run_inprogress") == true)
                #expect(refused.headers[.location] == "/v1/charge-runs/run_inprogress")
            }
            #expect(try await fixture.count("charge_runs") == 1, "a refused start records nothing")

            let other = try await client.send(.post, "/v1/charge-runs", key: fixture.adminB)
            #expect(other.status == .accepted, "another merchant's run is its own")
            _ = try await ChargeRunPolling.waitForRun(client, key: fixture.adminB, id: try #require(other.json["id"] as? String))

            var finished = running
            finished.status = .completed
            finished.finishedAt = Date()
            try await fixture.runtime.store.updateChargeRun(finished)
            let next = try await client.send(.post, "/v1/charge-runs", key: fixture.runnerA)
            #expect(next.status == .accepted, "once it finished, the next run starts")
            _ = try await ChargeRunPolling.waitForRun(client, key: fixture.runnerA, id: try #require(next.json["id"] as? String))
        }
    }

    @Test func runsAreScopedToTheCallersMerchantAndValidated() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let started = try await client.send(.post, "/v1/charge-runs", key: fixture.adminA)
            let id = try #require(started.json["id"] as? String)
            #expect(try await client.send(.get, "/v1/charge-runs/\(id)", key: fixture.adminB).status == .notFound)
            #expect(try await client.send(.post, "/v1/charge-runs", key: fixture.readonlyA).status == .forbidden)
            let future = try await client.send(.post, "/v1/charge-runs", key: fixture.adminA, json: #"{"asOf": "2999-01-01T00:00:00Z"}"#)
            #expect(future.status == .unprocessableContent)
            #expect(future.error["param"] as? String == "asOf")
            _ = try await ChargeRunPolling.waitForRun(client, key: fixture.adminA, id: id)
        }
    }

    @Test(arguments: [
        (#"{"dryrun": true}"#, "dryrun"),
        (#"{"dryRun": true, "asOf": "2020-01-01T00:00:00Z", "limit": 5}"#, "limit"),
        (#"{"4242424242424242": 1}"#, nil),
    ])
    func anUnknownFieldIs400AndStartsNoRun(_ body: String, _ param: String?) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.post, "/v1/charge-runs", key: fixture.adminA, json: body)
            #expect(response.status == .badRequest)
            #expect(response.error["code"] as? String == "unknown_parameter")
            #expect(response.error["param"] as? String == param)
            #expect(!response.text.contains("4242"))
        }
        #expect(try await fixture.count("charge_runs") == 0)
    }

    @Test(arguments: [(#"{"dryRun": null}"#, "dryRun"), (#"{"asOf": null, "dryRun": true}"#, "asOf"), (#"{"dryRun": "true"}"#, "dryRun")])
    func aNullOrMistypedFieldIs422AndStartsNoRun(_ body: String, _ param: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.post, "/v1/charge-runs", key: fixture.adminA, json: body)
            #expect(response.status == .unprocessableContent)
            #expect(response.error["param"] as? String == param)
        }
        #expect(try await fixture.count("charge_runs") == 0)
    }
}
