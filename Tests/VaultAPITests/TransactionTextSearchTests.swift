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

/// `q` on transactions also finds the payments of a stored card by its holder's name (through the
/// holder-name blind index, never in clear) and the transactions of a local date of the merchant.
@Suite struct TransactionTextSearchTests {
    static func register(_ client: some TestClientProtocol, _ fixture: APIFixture, _ reference: String, holder: String) async throws -> String {
        let created = try await client.send(
            .post, "/v1/secure-cards", key: fixture.adminA,
            json: #"{"merchantReference": "\#(reference)", "method": "keyed", "verify": false, "card": {"number": "4242424242424242", "expiryDate": "1230", "holderName": "\#(holder)"}}"#)
        #expect(created.status == .created, "\(created.text)")
        return try #require(created.json["secureCardReference"] as? String)
    }

    static func search(_ client: some TestClientProtocol, _ fixture: APIFixture, _ q: String) async throws -> [String] {
        let encoded = q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q
        let response = try await client.send(.get, "/v1/transactions?limit=100&q=\(encoded)", key: fixture.readonlyA)
        #expect(response.status == .ok, "\(q): \(response.text)")
        return response.ids
    }

    @Test func aPaymentIsFoundByItsStoredCardsHolderNameAndNotByAnotherMerchantsCard() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let ada = try await Self.register(client, fixture, "ada", holder: "Ada Lovelace")
            let grace = try await Self.register(client, fixture, "grace", holder: "Grace Hopper")
            let adaSale = try await fixture.record("2027-03-01T10:00:00Z", amount: 1000) { $0.secureCardReference = ada }
            let graceSale = try await fixture.record("2027-03-02T10:00:00Z", amount: 2000) { $0.secureCardReference = grace }
            let other = try await fixture.record("2027-03-03T10:00:00Z", amount: 3000, merchant: fixture.merchantB) { $0.secureCardReference = ada }
            #expect(try await Self.search(client, fixture, "lovelace") == [adaSale.id])
            #expect(try await Self.search(client, fixture, "Ada Lovelace") == [adaSale.id])
            #expect(try await Self.search(client, fixture, "HOPPER grace") == [graceSale.id])
            #expect(try await Self.search(client, fixture, "ada hopper").isEmpty)
            #expect(try await Self.search(client, fixture, "lovelac").isEmpty)
            #expect(!(try await Self.search(client, fixture, "lovelace")).contains(other.id))
        }
    }

    @Test func aDateFindsTheTransactionsOfThatDayInTheMerchantsZone() async throws {
        let fixture = try await APIFixture { $0.defaults.timeZone = "Europe/Berlin" }
        try await fixture.live { client in
            // 00:30 on 1 April in Berlin (CEST), 23:59 on 31 March, and noon on 1 April.
            let earlyApril = try await fixture.record("2027-03-31T22:30:00Z", amount: 5000)
            let lateMarch = try await fixture.record("2027-03-31T21:59:00Z", amount: 700)
            let noon = try await fixture.record("2027-04-01T10:00:00Z", amount: 900)
            _ = try await fixture.record("2027-04-01T10:00:00Z", amount: 900, merchant: fixture.merchantB)
            #expect(try await Self.search(client, fixture, "2027-04-01") == [noon.id, earlyApril.id])
            #expect(try await Self.search(client, fixture, "2027-03-31") == [lateMarch.id])
            #expect(try await Self.search(client, fixture, "2027-04-02").isEmpty)
            // Not a date: plain text, which matches nothing here.
            #expect(try await Self.search(client, fixture, "2027-02-30").isEmpty)
        }
    }
}
