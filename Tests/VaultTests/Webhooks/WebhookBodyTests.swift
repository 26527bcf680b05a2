import Foundation
import Testing
@testable import Vault

@Suite struct WebhookBodyTests {
    static let createdAt = Date(timeIntervalSince1970: 1_799_582_400)

    @Test func bodyIsCompactJSONWithSortedKeysAndTheDocumentedFields() throws {
        let body = WebhookBody(
            id: "evt_1", type: .transactionApproved, createdAt: Self.createdAt, merchantID: "mer_1",
            data: ["transactionId": "txn_1", "amount": 1250, "currency": "EUR", "recurring": true, "scheduleId": nil,
                   "gateway": ["name": "sandbox", "url": "https://x/y"], "steps": [1, 2]])
        #expect(try body.json() == """
            {"createdAt":"2027-01-10T12:00:00.000Z","data":{"amount":1250,"currency":"EUR","gateway":{"name":"sandbox","url":"https://x/y"},\
            "recurring":true,"scheduleId":null,"steps":[1,2],"transactionId":"txn_1"},"id":"evt_1","merchantId":"mer_1",\
            "type":"transaction.approved"}
            """)
    }

    @Test func bodyParsesBackToTheSameValue() throws {
        let body = WebhookBody(
            id: "evt_2", type: .secureCardDeleted, createdAt: Self.createdAt, merchantID: "mer_1",
            data: ["secureCardReference": "sc_abc", "nested": ["list": [true, nil, "x", -5]]])
        #expect(try WebhookBody.parse(Array(try body.json().utf8)) == body)
    }

    @Test func fractionalNumbersAreNotWebhookValues() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(WebhookValue.self, from: Data("1.5".utf8)) }
    }

    @Test(arguments: [
        ("card 4242424242424242 used", "card 424242******4242 used"),
        ("5555555555554444", "555555******4444"),
        ("378282246310005", "378282*****0005"),
        ("gateway id 1234567890123", "gateway id 1234567890123"),
        ("424242******4242", "424242******4242"),
        ("txn_4242424242424241", "txn_4242424242424241"),
    ])
    func luhnValidCardNumbersAreMaskedEvenIfAMistakeSendsOne(input: String, expected: String) throws {
        let masked = WebhookBody.maskingCardNumbers(["a": .string(input), "b": ["c": [.string(input)]]])
        #expect(masked["a"] == .string(expected))
        #expect(masked["b"] == ["c": [.string(expected)]])
    }

    @Test func aCardNumberOnlyDeepInsideTheDataIsMaskedToo() {
        let masked = WebhookBody.maskingCardNumbers(["a": "no digits here", "b": ["c": [.int(1), ["d": "pan 4222222222222"]]]])
        #expect(masked["a"] == "no digits here")
        #expect(masked["b"] == ["c": [.int(1), ["d": "pan 422222***2222"]]])
    }

    @Test func everyEventTypeHasTheDocumentedName() {
        #expect(WebhookEventType.allCases.map(\.rawValue) == [
            "transaction.approved", "transaction.declined", "schedule.completed", "schedule.past_due", "charge.needs_review",
            "transaction.needs_review",            "secure_card.registered", "secure_card.updated", "secure_card.deleted",
            "receipt.sms_requested",
        ])
    }
}
