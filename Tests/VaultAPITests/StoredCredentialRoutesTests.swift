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

/// Through the API: a card the merchant's gateway cannot take is
/// refused at registration with verification (422, nothing stored or sent); a currency it cannot
/// express is refused; first uses and token sales show `storedCredential` with the network
/// transaction id masked, and the id is kept sealed for the card.
@Suite struct StoredCredentialRoutesTests {
    /// A merchant on Authorize.Net whose endpoint nothing listens on: whatever is refused must be
    /// refused before a connection is tried.
    static func authorizeNetMerchant(_ fixture: APIFixture) async throws -> String {
        let (_, key) = try await fixture.runtime.merchants.create(
            name: "merchant-anet", role: .admin,
            settings: .init(gateway: "authorizenet", gatewayURL: "http://127.0.0.1:9", gatewayCredentials: ["name": "n", "transactionKey": "k"]),
            actor: "test")
        return key.bearer
    }

    @Test func aNineteenDigitCardIsRefusedAtRegistrationOnASixteenDigitGateway() async throws {
        let fixture = try await APIFixture()
        let key = try await Self.authorizeNetMerchant(fixture)
        try await fixture.live { client in
            let refused = try await client.send(.post, "/v1/secure-cards", key: key,
                                                json: keyedCard("long-1", number: "6011000000000000001", verify: true))
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            #expect(refused.error["code"] as? String == "unsupported_card")
            #expect(refused.error["param"] as? String == "card.number")
            #expect(!refused.text.contains("6011000000000000001"))
        }
        #expect(try await fixture.count("secure_cards") == 0)
        #expect(try await fixture.count("transactions") == 0)
    }

    @Test func aCurrencyTheGatewayCannotExpressIsRefusedForTheMerchantOnly() async throws {
        let fixture = try await APIFixture()
        let key = try await Self.authorizeNetMerchant(fixture)
        try await fixture.live { client in
            let body = #"{"type": "sale", "amount": 1250, "currency": "KWD", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}}"#
            let refused = try await client.send(.post, "/v1/transactions", key: key, json: body)
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            #expect(refused.error["code"] as? String == "unsupported_currency")
            #expect(refused.error["param"] as? String == "currency")
            // The sandbox takes each currency's own exponent.
            let accepted = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: body)
            #expect(accepted.status == .created, "\(accepted.text)")
        }
        #expect(try await fixture.count("transactions") == 1)
    }

    @Test func firstUsesAndTokenSalesShowTheStoredCredentialMasked() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let registered = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(
                extra: #", "secureCard": {"merchantReference": "cof-1"}"#))
            #expect(registered.status == .created, "\(registered.text)")
            let initial = try #require(registered.json["storedCredential"] as? [String: Any])
            #expect(initial["type"] as? String == "initial")
            #expect(initial["initiatedBy"] as? String == "customer")
            let masked = try #require(initial["networkTransactionId"] as? String)
            #expect(masked.hasPrefix("***********") && masked.count == 15)
            let token = try #require(registered.json["secureCardReference"] as? String)

            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA,
                                             json: #"{"type": "sale", "amount": 500, "currency": "USD", "secureCardReference": "\#(token)"}"#)
            #expect(sale.status == .created, "\(sale.text)")
            let subsequent = try #require(sale.json["storedCredential"] as? [String: Any])
            #expect(subsequent["type"] as? String == "subsequent")
            #expect(subsequent["initiatedBy"] as? String == "customer")

            let verified = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cof-2", verify: true))
            #expect(verified.status == .created, "\(verified.text)")

            let plain = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 1251))
            #expect(plain.status == .created, "\(plain.text)")
            #expect(plain.json["storedCredential"] is NSNull)
        }
        // One kept per first use (registration by sale, registration with verification), sealed.
        #expect(try await fixture.count("stored_credentials") == 2)
        let clearRows = try await fixture.sql.count("SELECT count(*) AS n FROM stored_credentials WHERE masked NOT LIKE '***********%'")
        #expect(clearRows == 0)
    }
}
