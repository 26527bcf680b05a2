import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// `POST /v1/schedules/{id}/steps/{stepId}/resolve`: a step that is not in
/// review is a 409, a bad body a 422, an unknown step a 404; none of them changes the step. The
/// resolutions themselves are pinned by `StepResolutionTests`.
@Suite struct StepResolveRoutesTests {
    @Test func onlyAStepInReviewCanBeResolvedAndBadBodiesChangeNothing() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1")).status == .created)
            let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: ScheduleRoutesTests.monthly())
            let id = try #require(created.json["id"] as? String)
            let stepID = try #require((created.json["steps"] as? [[String: Any]])?.first?["id"] as? String)
            let path = "/v1/schedules/\(id)/steps/\(stepID)/resolve"

            let scheduled = try await client.send(.post, path, key: fixture.adminA, json: #"{"outcome":"not_charged"}"#)
            #expect(scheduled.status == .conflict)
            #expect((scheduled.json["error"] as? [String: Any])?["code"] as? String == "step_not_in_review")

            for body in [#"{"outcome":"charged"}"#, #"{"outcome":"later"}"#,
                         #"{"outcome":"charged","gatewayTransactionId":"4111111111111111"}"#] {
                let bad = try await client.send(.post, path, key: fixture.adminA, json: body)
                #expect(bad.status == .unprocessableContent, "\(body)")
                #expect(!bad.text.contains("4111111111111111"))
            }
            let unknownField = try await client.send(.post, path, key: fixture.adminA, json: #"{"outcome":"not_charged","extra":1}"#)
            #expect(unknownField.status == .badRequest)
            let unknown = try await client.send(.post, "/v1/schedules/\(id)/steps/stp_nope/resolve", key: fixture.adminA,
                                                json: #"{"outcome":"not_charged"}"#)
            #expect(unknown.status == .notFound)
            let readonly = try await client.send(.post, path, key: fixture.readonlyA, json: #"{"outcome":"not_charged"}"#)
            #expect(readonly.status == .forbidden)
            #expect(try await fixture.count("schedule_steps WHERE status = 'scheduled'") == 3)
        }
    }
}
