import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// An attacker with write access to the database moves a
/// card's expiry forward and asks for a sale. The edit is detected before anything is recorded or
/// sent to the gateway (a transaction row is written `pending` before every gateway call, so no
/// row means no call).
@Suite struct CardMetadataTamperingRoutesTests {
    @Test func aSaleWithAnEditedExpiryIsRefusedAndChargesNothing() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let created = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("t-1"))
            let token = try #require(created.json["secureCardReference"] as? String)
            try await fixture.sql.run("UPDATE secure_cards SET expiry_year = 2045 WHERE id = \(token)")
            let recorded = try await fixture.count("transactions")  // the registration's verification
            let sale = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: #"{"type": "sale", "amount": 900, "currency": "USD", "merchantReference": "t-1"}"#)
            #expect(sale.status == .conflict, "\(sale.text)")
            #expect(sale.error["code"] as? String == "card_integrity_failed")
            #expect(try await fixture.count("transactions") == recorded)
            let shown = try await client.send(.get, "/v1/secure-cards/t-1", key: fixture.adminA)
            #expect(shown.error["code"] as? String == "card_integrity_failed")
            #expect(!shown.text.contains("2045") && !shown.text.contains("Ada Lovelace"))

            // The untouched card next to it charges as before.
            _ = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("t-2"))
            let good = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: #"{"type": "sale", "amount": 900, "currency": "USD", "merchantReference": "t-2"}"#)
            #expect(good.status == .created, "\(good.text)")
        }
    }
}
