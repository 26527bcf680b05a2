import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Payments
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A registration by sale is checked whole (reference, customer, custom fields
/// against the merchant's definitions) before the sale reaches the gateway. A registration that
/// would fail is a 422 (or 409 for a taken reference) and nothing is charged or stored; it used to
/// be approved with `secureCardReference: null`, the card silently lost.
@Suite struct RegistrationBySaleTests {
    static let definitions = #"{"fields": [{"name": "ReferenceID", "required": true, "maxLength": 8}, {"name": "Note", "required": false, "maxLength": 64}]}"#

    static func sale(registration: String) -> String {
        TransactionRoutesTests.rawSale(extra: #", "secureCard": "# + registration)
    }

    @Test(arguments: [
        (#"{"merchantReference": "bs-1"}"#, "secureCard.customFields", "required"),
        (#"{"merchantReference": "bs-1", "customFields": [{"name": "ReferenceID", "value": "R1"}, {"name": "Colour", "value": "red"}]}"#,
         "secureCard.customFields[1].name", "unknown_field"),
        (#"{"merchantReference": "bs-1", "customFields": [{"name": "ReferenceID", "value": "R123456789"}]}"#,
         "secureCard.customFields[0].value", "too_long"),
        (#"{"merchantReference": "bs-1", "customFields": [{"name": "ReferenceID", "value": "R1"}], "customer": {"email": "not-an-email"}}"#,
         "secureCard.customer.email", nil),
        (#"{"merchantReference": "bad reference!", "customFields": [{"name": "ReferenceID", "value": "R1"}]}"#,
         "secureCard.merchantReference", nil),
    ])
    func aRegistrationThatWouldFailIsRefusedBeforeTheSaleAndChargesNothing(registration: String, param: String, code: String?) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.put, "/v1/custom-fields", key: fixture.adminA, json: Self.definitions).status == .ok)
            let response = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.sale(registration: registration))
            #expect(response.status == .unprocessableContent, "\(response.text)")
            #expect(response.error["param"] as? String == param)
            if let code { #expect(response.error["code"] as? String == code) }
        }
        #expect(try await fixture.count("transactions") == 0)
        #expect(try await fixture.count("secure_cards") == 0)
    }

    @Test func aTakenReferenceIsAConflictBeforeTheSale() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("bs-taken", verify: false)).status == .created)
            let response = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: Self.sale(registration: #"{"merchantReference": "bs-taken"}"#))
            #expect(response.status == .conflict, "\(response.text)")
            #expect(response.error["code"] as? String == "merchant_reference_taken")
        }
        #expect(try await fixture.count("transactions") == 0)
    }

    @Test func aCompleteRegistrationIsChargedAndStoredWithItsFields() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.put, "/v1/custom-fields", key: fixture.adminA, json: Self.definitions).status == .ok)
            let registration = #"{"merchantReference": "bs-ok", "customFields": [{"name": "ReferenceID", "value": "R1"}], "customer": {"email": "ada@example.com"}}"#
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.sale(registration: registration))
            #expect(sale.status == .created, "\(sale.text)")
            let token = try #require(sale.json["secureCardReference"] as? String)
            let card = try await client.send(.get, "/v1/secure-cards/bs-ok", key: fixture.adminA)
            #expect(card.json["secureCardReference"] as? String == token)
            #expect((card.json["customFields"] as? [[String: String]]) == [["name": "ReferenceID", "value": "R1"]])
        }
        #expect(try await fixture.count("transactions") == 1)
    }
}
