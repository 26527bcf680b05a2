import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Payments
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// A gateway credit (a refund without an earlier sale), allowed by a merchant setting, and
/// duplicate protection without an Idempotency-Key.
@Suite struct CreditAndDuplicateTests {
    static func body(_ type: String = "sale", number: String = "4242424242424242", amount: Int = 1250, currency: String = "USD", extra: String = "") -> String {
        #"{"type": "\#(type)", "amount": \#(amount), "currency": "\#(currency)", "method": "keyed", "card": {"number": "\#(number)", "expiryDate": "1230", "holderName": "Ada Lovelace"}\#(extra)}"#
    }

    static func allowCredit(_ fixture: APIFixture) async throws {
        let updated = try await fixture.runtime.merchants.update(name: "merchant-a", settings: MerchantSettings(allowCredit: true), actor: "test")
        #expect(updated.allowsCredit)
    }

    @Test func aCreditIsRefusedUnlessTheMerchantsSettingsAllowItAndRecordsNothing() async throws {
        let fixture = try await APIFixture()
        #expect(fixture.merchantA.allowsCredit == false)
        try await fixture.live { client in
            let refused = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.body("credit"))
            #expect(refused.status == .forbidden, "\(refused.text)")
            #expect(refused.error["code"] as? String == "credit_not_allowed")
            #expect(refused.error["type"] as? String == "permission_error")
        }
        #expect(try await fixture.count("transactions") == 0)
    }

    @Test func anAllowedCreditReturnsMoneyWithoutAParentByRawCardOrToken() async throws {
        let fixture = try await APIFixture()
        try await Self.allowCredit(fixture)
        try await fixture.live { client in
            let credit = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.body("credit", amount: 700))
            #expect(credit.status == .created, "\(credit.text)")
            #expect(credit.json["type"] as? String == "credit")
            #expect(credit.json["status"] as? String == "approved")
            #expect(credit.json["parentId"] is NSNull)
            #expect(credit.json["state"] as? Int == 500)
            #expect(credit.json["subState"] as? Int == 504)
            let card = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("credit-card", verify: false))
            let token = try #require(card.json["secureCardReference"] as? String)
            let byToken = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: #"{"type": "credit", "amount": 300, "currency": "EUR", "secureCardReference": "\#(token)"}"#)
            #expect(byToken.status == .created, "\(byToken.text)")
            #expect(byToken.json["merchantReference"] as? String == "credit-card")
            let declined = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.body("credit", number: "4000000000000002"))
            #expect(declined.status.code == 402)
            let search = try await client.send(.get, "/v1/transactions?type=credit", key: fixture.readonlyA)
            #expect(search.ids.count == 3)
            // A credit is not a payment: nothing to capture, void or refund on it through the follow-ups.
            let creditID = try #require(credit.json["id"] as? String)
            #expect(try await client.send(.post, "/v1/transactions/\(creditID)/refund", key: fixture.adminA).status == .conflict)
        }
    }

    @Test(arguments: [
        (#"{"type": "credit", "amount": 0, "currency": "USD", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}}"#, "amount"),
        (#"{"type": "credit", "currency": "USD", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}}"#, "amount"),
        (#"{"type": "credit", "amount": 100, "currency": "USD", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "secureCard": {"merchantReference": "x"}}"#, "secureCard"),
        (#"{"type": "sale", "amount": 100, "currency": "USD", "allowDuplicate": "yes", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}}"#, "allowDuplicate"),
    ])
    func badCreditsAndDuplicateFlagsAre422AndRecordNothing(body: String, param: String) async throws {
        let fixture = try await APIFixture()
        try await Self.allowCredit(fixture)
        try await fixture.live { client in
            let response = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: body)
            #expect(response.status == .unprocessableContent, "\(response.text)")
            #expect(response.error["param"] as? String == param)
        }
        #expect(try await fixture.count("transactions") == 0)
    }

    @Test func theSameSaleOnTheSameCardWithinTheWindowIsADuplicateUnlessAllowed() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let first = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.body())
            #expect(first.status == .created)
            let firstID = try #require(first.json["id"] as? String)
            let again = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: Self.body())
            #expect(again.status == .conflict, "\(again.text)")
            #expect(again.error["code"] as? String == "duplicate_transaction")
            #expect((again.error["message"] as? String)?.contains(firstID) == true)
            #expect(!again.text.contains("4242424242424242"))
            // Another Idempotency-Key does not make it a new sale.
            let otherKey = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: Self.body(), headers: [.init("Idempotency-Key")!: "retry-2"])
            #expect(otherKey.status == .conflict)
            // The same card by token is the same card.
            let card = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("dup-card", verify: false))
            let token = try #require(card.json["secureCardReference"] as? String)
            let byToken = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: #"{"type": "sale", "amount": 1250, "currency": "USD", "secureCardReference": "\#(token)"}"#)
            #expect(byToken.status == .conflict)
            // What differs is no duplicate: amount, currency, card, type; and the client may insist.
            for body in [Self.body(amount: 1251), Self.body(currency: "EUR"), Self.body(number: "5555555555554444"), Self.body("authorize"),
                         Self.body(extra: #", "allowDuplicate": true"#)] {
                let response = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: body)
                #expect(response.status == .created, "\(body): \(response.text)")
            }
            // Another merchant's identical sale is its own.
            #expect(try await client.send(.post, "/v1/transactions", key: fixture.adminB, json: Self.body()).status == .created)
        }
        #expect(try await fixture.count("transactions") == 7)
    }

    @Test func aDeclinedSaleIsNoDuplicateAndTheWindowEnds() async throws {
        let fixture = try await APIFixture { $0.duplicateWindowSeconds = 120 }
        let t0 = Date()
        func sale(_ number: String, at instant: Date) async throws -> Result<Payments.Transaction, TransactionError> {
            let request = try JSONDecoder().decode(TransactionRequest.self, from: Data(Self.body(number: number).utf8))
            do {
                return .success(try await fixture.runtime.transactions.create(try request.validated(for: fixture.merchantA), merchant: fixture.merchantA, actor: "test", now: instant))
            } catch let error as TransactionError {
                return .failure(error)
            }
        }
        guard case .failure(.declined) = try await sale("4000000000009995", at: t0) else { Issue.record("expected a decline"); return }
        guard case .failure(.declined) = try await sale("4000000000009995", at: t0.addingTimeInterval(1)) else {
            Issue.record("a declined sale blocked its retry"); return
        }
        guard case .success = try await sale("4242424242424242", at: t0) else { Issue.record("expected an approval"); return }
        guard case .failure(.notAllowed(code: "duplicate_transaction", _)) = try await sale("4242424242424242", at: t0.addingTimeInterval(119)) else {
            Issue.record("expected a duplicate inside the window"); return
        }
        guard case .success = try await sale("4242424242424242", at: t0.addingTimeInterval(121)) else { Issue.record("expected a sale after the window"); return }
    }

    @Test func theDuplicateMACIsKeyedPerMerchantAndAPurgeErasesIt() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            for key in [fixture.adminA, fixture.adminB] {
                let card = try await client.send(.post, "/v1/secure-cards", key: key, json: keyedCard("mac-card", verify: false))
                let token = try #require(card.json["secureCardReference"] as? String)
                let sale = try await client.send(
                    .post, "/v1/transactions", key: key, json: #"{"type": "sale", "amount": 1250, "currency": "USD", "secureCardReference": "\#(token)"}"#)
                #expect(sale.status == .created)
            }
        }
        let macs = try await fixture.sql.query("SELECT duplicate_mac FROM transactions WHERE duplicate_mac IS NOT NULL").map { try $0.blob("duplicate_mac") }
        #expect(macs.count == 2)
        #expect(Set(macs).count == 2)
        for message in ["4242424242424242", "sale|USD|1250|4242424242424242"] {
            let unkeyed = UnkeyedHash.all(Array(message.utf8)).map { Array($0.prefix(16)) }
            #expect(Set(macs).isDisjoint(with: unkeyed))
        }
        try await fixture.live { client in
            let purged = try await client.send(.delete, "/v1/secure-cards/mac-card?purge=true", key: fixture.adminA)
            #expect(purged.status == .ok)
        }
        let left = try await fixture.sql.count(
            "SELECT count(*) AS n FROM transactions WHERE duplicate_mac IS NOT NULL AND merchant_id = \(fixture.merchantA.id)")
        #expect(left == 0)
    }

    @Test func theWindowIsConfigurable() throws {
        let directory = TemporaryDirectory()
        try "duplicates:\n  windowSeconds: 60\n".write(toFile: directory.file("vault.yaml"), atomically: true, encoding: .utf8)
        #expect(try VaultConfiguration.load(path: directory.file("vault.yaml"), environment: [:]).duplicateWindowSeconds == 60)
        #expect(VaultConfiguration().duplicateWindowSeconds == 300)
        for bad in ["duplicates:\n  windowSeconds: -1\n", "duplicates:\n  windowSeconds: 86401\n", "duplicates:\n  window: 2\n"] {
            try bad.write(toFile: directory.file("bad.yaml"), atomically: true, encoding: .utf8)
            #expect(throws: ConfigurationError.self) { try VaultConfiguration.load(path: directory.file("bad.yaml"), environment: [:]) }
        }
    }

    @Test func aGatewayWithoutCreditsSaysSoWithoutACall() async {
        struct NoCredits: GatewayAdapter {
            let name = "plain"
            func sale(_ request: ChargeRequest) async -> GatewayResult { .error("unused", retryable: false) }
            func authorize(_ request: ChargeRequest) async -> GatewayResult { .error("unused", retryable: false) }
            func capture(_ request: FollowUpRequest) async -> GatewayResult { .error("unused", retryable: false) }
            func void(_ request: FollowUpRequest) async -> GatewayResult { .error("unused", retryable: false) }
            func refund(_ request: FollowUpRequest) async -> GatewayResult { .error("unused", retryable: false) }
            func verify(_ request: ChargeRequest) async -> GatewayResult { .error("unused", retryable: false) }
            func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup { .notFound }
        }
        #expect(!NoCredits().supportsCredit)
        #expect(SandboxGateway().supportsCredit)
        let card = PaymentCard(pan: try! PrimaryAccountNumber(validating: "4242424242424242"), expiry: try! CardExpiry(month: 12, year: 2030),
                               holderName: nil, cvv: nil, postalCode: nil)
        let result = await NoCredits().credit(ChargeRequest(idempotencyKey: "k", reference: "r", amount: Money(minorUnits: 100, currency: try! Currency(code: "USD")), card: card))
        #expect(result.outcome == .error(code: "credit_not_supported", retryable: false))
    }
}
