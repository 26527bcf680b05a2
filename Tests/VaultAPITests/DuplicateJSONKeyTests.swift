import Foundation
import HTTPTypes
import HummingbirdTesting
import Payments
import Scheduler
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A body that gives a key twice is ambiguous (`JSONDecoder` keeps one
/// silently, so `"amount":100,"amount":999999` charged 100) and is refused with 400 before
/// anything is decoded, charged or stored.
@Suite struct DuplicateJSONKeyTests {
    /// The key the body parser refuses as given twice, nil when it refuses nothing or something else.
    static func duplicate(in text: String) -> String? {
        do {
            _ = try JSONBodyParser.parse(Array(text.utf8))
            return nil
        } catch {
            if case .duplicateKey(let key) = error { return key }
            return nil
        }
    }

    @Test(arguments: [
        (#"{"amount":100,"amount":999999}"#, "amount"),
        (#"{"a":1,"card":{"number":"4242","expiryDate":"1230","number":"4000"}}"#, "number"),
        (#"[{"x":1},{"y":[{"z":1,"z":2}]}]"#, "z"),
        (#"{"amount":100,"\u0061mount":5}"#, "amount"),
        (#"{"am\"t":1,"am\u0022t":2}"#, "am\"t"),
        (#"{"é":1,"e\u0301":2}"#, "é"),
        (#"{"😀":1,"\ud83d\ude00":2}"#, "😀"),
        (#"{ "k" : 1 , "k" : 1 }"#, "k"),
    ])
    func duplicatesAreFoundAtAnyDepthAsTheDecoderReadsKeys(_ json: String, _ key: String) {
        #expect(Self.duplicate(in: json) == key)
    }

    @Test(arguments: [
        #"{"amount":100,"currency":"USD"}"#, #"{"a":{"k":1},"b":{"k":1}}"#, #"[{"k":1},{"k":2}]"#, #"{"k":"k","v":["k","k"]}"#,
        #"{"text":"{\"k\":1,\"k\":2}"}"#, #"{"a\\":1,"a":2}"#, #"{"customFields":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}"#,
        "", "{", #"{"unterminated"#, #"}}]]{"x":1}"#,
    ])
    func bodiesWithoutDuplicatesPass(_ json: String) {
        #expect(Self.duplicate(in: json) == nil)
    }

    @Test func aSaleWithTheAmountGivenTwiceIsRefusedAndNothingIsChargedOrStored() async throws {
        let fixture = try await APIFixture()
        let sandbox = fixture.runtime.gateways.sandbox
        let ambiguous = """
            {"type": "sale", "amount": 100, "amount": 999999, "currency": "USD", "method": "keyed",
             "card": {"number": "4242424242424242", "expiryDate": "1230", "holderName": "Ada Lovelace"}}
            """
        try await fixture.live { client in
            let refused = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: ambiguous)
            #expect(refused.status == .badRequest, "\(refused.status)")
            #expect(refused.error["code"] as? String == "duplicate_key")
            #expect(refused.error["param"] as? String == "amount")
            #expect(!refused.text.contains("4242424242424242"))
            #expect(try await sandbox.transactionCount == 0)
            #expect(try await fixture.count("transactions") == 0)
            let listed = try await client.send(.get, "/v1/transactions", key: fixture.adminA)
            #expect((listed.json["data"] as? [Any])?.isEmpty == true)

            let clear = ambiguous.replacingOccurrences(of: #""amount": 999999, "#, with: "")
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: clear)
            #expect(sale.status == .created, "\(sale.status)")
            #expect(sale.json["amount"] as? Int == 100)
            #expect(try await sandbox.transactionCount == 1)
        }
    }

    @Test func aDuplicateInsideANestedObjectIsRefusedOnEveryRoute() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let card = keyedCard("dup-1", extra: #", "customer": {"city": "Paris", "city": "Lyon"}"#)
            let registration = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: card)
            #expect(registration.status == .badRequest)
            #expect(registration.error["code"] as? String == "duplicate_key")
            #expect(try await fixture.count("secure_cards") == 0)
            let keyAsCardNumber = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: #"{"4242424242424242": 1, "4242424242424242": 2}"#)
            #expect(keyAsCardNumber.status == .badRequest)
            #expect(keyAsCardNumber.error["param"] as? String == nil)
            #expect(!keyAsCardNumber.text.contains("4242424242424242"))
            let ok = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("dup-2", verify: false))
            #expect(ok.status == .created, "\(ok.status)")
        }
    }
}
