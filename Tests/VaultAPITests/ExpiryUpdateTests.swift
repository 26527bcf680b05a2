import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// `PATCH` with `card: {expiryDate}` alone changes only the expiry (same token, PAN,
/// fingerprint; no gateway call); it used to demand the whole card number. New card data still
/// replaces the card, with verification.
@Suite struct ExpiryUpdateTests {
    @Test func anExpiryAloneChangesOnlyTheExpiryAndTheCardStillCharges() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let created = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("exp-1", verify: false))
            let updated = try await client.send(.patch, "/v1/secure-cards/exp-1", key: fixture.adminA, json: #"{"card": {"expiryDate": "0131"}}"#)
            #expect(updated.status == .ok, "\(updated.text)")
            #expect(updated.json["expiryDate"] as? String == "0131")
            for field in ["secureCardReference", "maskedNumber", "fingerprint", "holderName", "entryMode", "cardType"] {
                #expect(updated.json[field] as? String == created.json[field] as? String, "\(field)")
            }
            let retrieved = try await client.send(.get, "/v1/secure-cards/exp-1", key: fixture.adminA)
            #expect(retrieved.json["expiryDate"] as? String == "0131")
            let sale = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: #"{"type": "sale", "amount": 100, "currency": "USD", "merchantReference": "exp-1"}"#)
            #expect(sale.status == .created, "\(sale.text)")
        }
        #expect(try await fixture.count("audit_events WHERE action = 'secure_card.updated'") == 1)
    }

    @Test(arguments: [
        (#"{"card": {"expiryDate": "1399"}}"#, "card.expiryDate"),
        (#"{"card": {"expiryDate": "0120"}}"#, "card.expiryDate"),
        (#"{"card": {"expiryDate": "0131", "holderName": "Someone Else"}}"#, "card.number"),
        (#"{"method": "keyed", "card": {"expiryDate": "0131"}}"#, "card.number"),
        (#"{"card": {}}"#, "card.number"),
    ])
    func aBadOrIncompleteExpiryChangeIs422AndChangesNothing(body: String, param: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("exp-2", verify: false)).status == .created)
            let refused = try await client.send(.patch, "/v1/secure-cards/exp-2", key: fixture.adminA, json: body)
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            #expect(refused.error["param"] as? String == param)
            #expect(try await client.send(.get, "/v1/secure-cards/exp-2", key: fixture.adminA).json["expiryDate"] as? String == "1230")
        }
    }

    @Test func aNewCardNumberStillReplacesTheCardWithVerification() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("exp-3", verify: false)).status == .created)
            let declined = try await client.send(
                .patch, "/v1/secure-cards/exp-3", key: fixture.adminA,
                json: #"{"card": {"number": "4000000000000002", "expiryDate": "0131", "holderName": "Ada Lovelace"}, "verify": true}"#)
            #expect(declined.status.code == 402, "\(declined.text)")
            let replaced = try await client.send(
                .patch, "/v1/secure-cards/exp-3", key: fixture.adminA,
                json: #"{"card": {"number": "5555555555554444", "expiryDate": "0131", "holderName": "Ada Lovelace"}, "verify": true}"#)
            #expect(replaced.status == .ok, "\(replaced.text)")
            #expect(replaced.json["cardType"] as? String == "mastercard")
            #expect(replaced.json["verification"] is [String: Any])
        }
    }
}
