import Foundation
import Payments
import Testing
import VaultAPI

/// The body of a step's resolution (`POST /v1/schedules/{id}/steps/{stepId}/resolve`) is charged
/// with the gateway's transaction id or not charged; a bad one is refused naming its field, and no
/// message quotes a card number.
@Suite struct StepResolutionRequestTests {
    static func decode(_ json: String) throws -> StepResolutionRequest {
        try JSONDecoder().decode(StepResolutionRequest.self, from: Data(json.utf8))
    }

    @Test func theBodyIsChargedWithATransactionIDOrNotCharged() throws {
        #expect(try Self.decode(#"{"outcome":"charged","gatewayTransactionId":"40000000123"}"#).resolution
            == .charged(gatewayTransactionID: "40000000123"))
        #expect(try Self.decode(#"{"outcome":"not_charged"}"#).resolution == .notCharged)
    }

    @Test(arguments: [
        (#"{}"#, "outcome"),
        (#"{"outcome":"maybe"}"#, "outcome"),
        (#"{"outcome":7}"#, "outcome"),
        (#"{"outcome":"charged"}"#, "gatewayTransactionId"),
        (#"{"outcome":"charged","gatewayTransactionId":""}"#, "gatewayTransactionId"),
        (#"{"outcome":"charged","gatewayTransactionId":"a b"}"#, "gatewayTransactionId"),
        (#"{"outcome":"charged","gatewayTransactionId":12}"#, "gatewayTransactionId"),
        (#"{"outcome":"charged","gatewayTransactionId":"4111111111111111"}"#, "gatewayTransactionId"),
        (#"{"outcome":"not_charged","gatewayTransactionId":"1"}"#, "gatewayTransactionId"),
    ])
    func aBadBodyIsRefusedNamingTheField(json: String, field: String) throws {
        do {
            _ = try Self.decode(json)
            Issue.record("accepted a bad body")
        } catch let ReviewResolutionError.invalid(name, _, message) {
            #expect(name == field)
            #expect(!message.contains("4111111111111111"))
        }
    }
}
