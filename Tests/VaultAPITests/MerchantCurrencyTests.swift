import Foundation
import HTTPTypes
import HummingbirdTesting
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// A merchant's gateway account has a currency (US dollars unless set): stored on both engines,
/// set with `vault merchant create|update --currency CODE`, and the currency cards are verified
/// in (registration with verification, and `type: verify` without a currency). A currency the
/// merchant's gateway does not take is refused: 422 `unsupported_currency` before anything is sent.
@Suite struct MerchantCurrencyTests {
    @Test func aMerchantsCurrencyIsUSDUnlessSetAndIsStored() async throws {
        let fixture = try await APIFixture()
        #expect(fixture.merchantA.gateway.currency.code == "USD")
        let (created, _) = try await fixture.runtime.merchants.create(
            name: "merchant-cad", role: .admin, settings: .init(currency: "CAD"), actor: "test")
        #expect(created.gateway.currency.code == "CAD")
        #expect(try await fixture.runtime.store.merchant(named: "merchant-cad")?.gateway.currency.code == "CAD")
        _ = try await fixture.runtime.merchants.update(name: "merchant-cad", settings: .init(currency: "EUR"), actor: "test")
        #expect(try await fixture.runtime.store.merchant(named: "merchant-cad")?.gateway.currency.code == "EUR")
        _ = try await fixture.runtime.merchants.update(name: "merchant-cad", settings: .init(timeZone: "Europe/Paris"), actor: "test")
        #expect(try await fixture.runtime.store.merchant(named: "merchant-cad")?.gateway.currency.code == "EUR")
    }

    @Test func anUnknownCurrencyOrOneTheGatewayDoesNotTakeIsRefusedAndChangesNothing() async throws {
        let fixture = try await APIFixture()
        await #expect(throws: MerchantSettingError.self) {
            _ = try await fixture.runtime.merchants.update(name: "merchant-a", settings: .init(currency: "XYZ"), actor: "test")
        }
        await #expect(throws: MerchantSettingError.self) {
            _ = try await fixture.runtime.merchants.update(name: "merchant-a", settings: .init(currency: "usd"), actor: "test")
        }
        let bridgePay = ["username": "vaulttest", "password": "57!sE@3Fm", "merchantCode": "320000", "merchantAccountCode": "320001"]
        await #expect(throws: MerchantSettingError.self) {
            _ = try await fixture.runtime.merchants.create(
                name: "merchant-bp", role: .admin,
                settings: .init(gateway: "bridgepay", gatewayURL: "http://127.0.0.1:9", gatewayCredentials: bridgePay, currency: "EUR"),
                actor: "test")
        }
        #expect(try await fixture.runtime.store.merchant(named: "merchant-bp") == nil)
        #expect(try await fixture.runtime.store.merchant(named: "merchant-a")?.gateway.currency.code == "USD")
    }

    @Test func cardsAreVerifiedInTheMerchantsCurrency() async throws {
        let fixture = try await APIFixture()
        _ = try await fixture.runtime.merchants.update(name: "merchant-a", settings: .init(currency: "CAD"), actor: "test")
        try await fixture.live { client in
            let registered = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA,
                                                   json: keyedCard("cad-1", number: "4242424242424242", verify: true))
            #expect(registered.status == .created, "\(registered.text)")
            let verify = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: """
                {"type": "verify", "amount": 0, "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}}
                """)
            #expect(verify.status == .created, "\(verify.text)")
            #expect(verify.json["currency"] as? String == "CAD")
        }
        let currencies = try await fixture.sql.query("SELECT currency FROM transactions WHERE type = 'verify' ORDER BY seq")
            .map { try $0.string("currency") }
        #expect(currencies == ["CAD", "CAD"])
    }

    /// BridgePay documents amounts in US cents only: another currency is a caller error, refused
    /// before any call (it used to be sent and answered 502).
    @Test func aCurrencyBridgePayDoesNotTakeIsA422BeforeAnyCall() async throws {
        let fixture = try await APIFixture()
        let bridgePay = ["username": "vaulttest", "password": "57!sE@3Fm", "merchantCode": "320000", "merchantAccountCode": "320001"]
        let (_, key) = try await fixture.runtime.merchants.create(
            name: "merchant-bp", role: .admin,
            settings: .init(gateway: "bridgepay", gatewayURL: "http://127.0.0.1:9", gatewayCredentials: bridgePay), actor: "test")
        try await fixture.live { client in
            let body = #"{"type": "sale", "amount": 1250, "currency": "EUR", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}}"#
            let refused = try await client.send(.post, "/v1/transactions", key: key.bearer, json: body)
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            #expect(refused.error["code"] as? String == "unsupported_currency")
            #expect(refused.error["param"] as? String == "currency")
        }
        #expect(try await fixture.count("transactions") == 0)
    }
}
