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

/// `GET /v1/charge-runs`: every run that charged the merchant's steps, newest first, whoever started
/// it (the API, or `vault charge run` from cron, recorded as the command records it); a run of every
/// merchant without its summary; bad queries a clear 4xx.
@Suite struct ChargeRunListRoutesTests {
    /// Records a finished run as `vault charge run` does (`startedBy: cli`; no merchant unless `--merchant`).
    static func recordCLIRun(_ fixture: APIFixture, merchantID: String?, summary: String?) async throws -> String {
        let id = OpaqueToken.make(prefix: "run_", randomBits: 80)
        var record = ChargeRunRecord(
            id: id, merchantID: merchantID, status: .running, asOf: Date(), dryRun: false, startedBy: "cli", startedAt: Date(),
            owner: RunnerIdentity.process)
        try await fixture.runtime.store.insertChargeRun(
            record, audit: AuditEntry(merchantID: merchantID, actor: "cli", action: "charge_run.started", objectType: "charge_run", objectID: id))
        record.status = .completed
        record.finishedAt = Date()
        record.summary = summary
        try await fixture.runtime.store.updateChargeRun(record)
        return id
    }

    @Test func theListHoldsRunsOfTheAPIAndTheCommandLineNewestFirstAndRefusesBadQueries() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let started = try await client.send(.post, "/v1/charge-runs", key: fixture.runnerA)
            #expect(started.status == .accepted)
            let apiRun = try #require(started.json["id"] as? String)
            _ = try await ChargeRunPolling.waitForRun(client, key: fixture.runnerA, id: apiRun)
            let summary = try #require(try await fixture.runtime.store.chargeRun(id: apiRun, merchantID: nil)?.summary)
            let nightly = try await Self.recordCLIRun(fixture, merchantID: nil, summary: summary)
            let ownByCLI = try await Self.recordCLIRun(fixture, merchantID: fixture.merchantA.id, summary: summary)
            let otherMerchants = try await Self.recordCLIRun(fixture, merchantID: fixture.merchantB.id, summary: summary)

            for key in [fixture.adminA, fixture.readonlyA] {
                let listed = try await client.send(.get, "/v1/charge-runs", key: key)
                #expect(listed.status == .ok, "\(listed.text)")
                let runs = try #require(listed.json["data"] as? [[String: Any]])
                #expect(runs.map { $0["id"] as? String } == [ownByCLI, nightly, apiRun])
                #expect(runs.map { $0["scope"] as? String } == ["merchant", "all_merchants", "merchant"])
                #expect(runs.map { $0["startedBy"] as? String }.prefix(2) == ["cli", "cli"])
                #expect(runs[0]["summary"] is [String: Any] && runs[2]["summary"] is [String: Any])
                #expect(runs[1]["summary"] is NSNull, "a run of every merchant counts other merchants' charges")
                #expect(runs.allSatisfy { $0["status"] as? String == "completed" })
            }
            let forB = try await client.send(.get, "/v1/charge-runs", key: fixture.adminB)
            #expect((forB.json["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [otherMerchants, nightly])

            let page = try await client.send(.get, "/v1/charge-runs?limit=2", key: fixture.adminA)
            #expect((page.json["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [ownByCLI, nightly])
            let cursor = try #require(page.json["nextCursor"] as? String)
            let next = try await client.send(.get, "/v1/charge-runs?limit=2&cursor=\(cursor)", key: fixture.adminA)
            #expect((next.json["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [apiRun])
            #expect(next.json["nextCursor"] is NSNull)
            let foreignCursor = try await client.send(.get, "/v1/charge-runs?cursor=\(cursor)", key: fixture.adminB)
            #expect(foreignCursor.status == .unprocessableContent && foreignCursor.error["code"] as? String == "invalid_cursor")
            let badLimit = try await client.send(.get, "/v1/charge-runs?limit=101", key: fixture.adminA)
            #expect(badLimit.status == .unprocessableContent && badLimit.error["param"] as? String == "limit")
            let unknown = try await client.send(.get, "/v1/charge-runs?merchant=all", key: fixture.adminA)
            #expect(unknown.status == .badRequest && unknown.error["code"] as? String == "unknown_parameter")
            #expect(try await client.send(.get, "/v1/charge-runs", key: fixture.runnerA).status == .forbidden)
        }
    }
}
