import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// Free text a hostile client sends: longer than the document allows, with control characters
/// (ESC sequences echoed to every portal and CSV export, NUL that PostgreSQL text cannot hold), or a
/// card number in a search. Each is a 422 naming the field that stores and charges nothing, the
/// same on both engines (run with `VAULT_TEST_ENGINE=postgres`), next to the same request without
/// the fault, which is served.
@Suite struct TextPolicyTests {
    static func sale(description: String) -> String {
        TransactionRoutesTests.rawSale(extra: #", "description": "\#(description)""#)
    }

    @Test func aDescriptionLongerThanTheDocumentAllowsIsRefusedAndNothingIsStoredOrCharged() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            for length in [256, 200_000] {
                let response = try await client.send(
                    .post, "/v1/transactions", key: fixture.adminA, json: Self.sale(description: String(repeating: "d", count: length)))
                #expect(response.status == .unprocessableContent, "\(length): \(response.text.prefix(200))")
                #expect(response.error["code"] as? String == "too_long")
                #expect(response.error["param"] as? String == "description")
            }
            #expect(try await fixture.count("transactions") == 0)
            let good = try await client.send(
                .post, "/v1/transactions", key: fixture.adminA, json: Self.sale(description: String(repeating: "d", count: 255)))
            #expect(good.status == .created, "\(good.text.prefix(200))")
        }
        #expect(try await fixture.count("transactions") == 1)
    }

    /// Bodies with a control character (written as a JSON escape) in one text field, and the field.
    static let controlCharacterBodies: [(path: String, body: String, param: String)] = [
        ("/v1/transactions", sale(description: #"refund \u0000 me"#), "description"),
        ("/v1/transactions", sale(description: #"\u001b[2J\u001b[31mpaid"#), "description"),
        ("/v1/transactions", sale(description: #"line one\nline two"#), "description"),
        ("/v1/secure-cards", keyedCard(#"ref\u0000x"#), "merchantReference"),
        ("/v1/secure-cards", keyedCard("ref-1", extra: #", "customer": {"city": "Par\u001bis"}"#), "customer.city"),
        (
            "/v1/secure-cards",
            #"{"merchantReference": "ref-1", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230", "holderName": "Ada\u0000Lovelace"}}"#,
            "card.holderName"
        ),
    ]

    @Test(arguments: controlCharacterBodies)
    func aControlCharacterInATextFieldIsRefusedOnEitherEngineAndNothingIsStored(path: String, body: String, param: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.post, path, key: fixture.adminA, json: body)
            #expect(response.status == .unprocessableContent, "\(response.text.prefix(300))")
            #expect(response.error["code"] as? String == "control_character")
            #expect(response.error["param"] as? String == param)
            #expect(try await fixture.count("transactions") == 0)
            #expect(try await fixture.count("secure_cards") == 0)
            // The same request with the control character taken out is served.
            let clean = body.replacingOccurrences(of: #"\u0000"#, with: "").replacingOccurrences(of: #"\u001b"#, with: "")
                .replacingOccurrences(of: #"\n"#, with: " ")
            let good = try await client.send(.post, path, key: fixture.adminA, json: clean)
            #expect(good.status == .created, "\(good.text.prefix(300))")
        }
    }

    @Test(arguments: [
        ("/v1/transactions?q=a%00b", "q"), ("/v1/transactions?q=%1B%5B31m", "q"), ("/v1/secure-cards?q=ref%00", "q"),
        ("/v1/secure-cards?cardReference=sc_%00", "cardReference"), ("/v1/secure-cards?holderName=Ada%00", "holderName"),
        ("/v1/transactions?secureCardReference=sc_%00", "secureCardReference"), ("/v1/audit-events?objectId=x%00", "objectId"),
    ])
    func aControlCharacterInASearchParameterIsA422OnEitherEngine(uri: String, param: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.get, uri, key: fixture.adminA)
            #expect(response.status == .unprocessableContent, "\(uri): \(response.text.prefix(300))")
            #expect(response.error["code"] as? String == "control_character")
            #expect(response.error["param"] as? String == param)
            let clean = uri.replacingOccurrences(of: "%00", with: "").replacingOccurrences(of: "%1B", with: "")
            let good = try await client.send(.get, clean, key: fixture.adminA)
            #expect(good.status == .ok, "\(clean): \(good.text.prefix(300))")
        }
        #expect(!fixture.logText.contains("unhandled error"))
    }

    @Test func aSearchParameterLongerThanTheDocumentAllowsIsA422() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let long = try await client.send(.get, "/v1/secure-cards?cardReference=sc_" + String(repeating: "a", count: 62), key: fixture.adminA)
            #expect(long.status == .unprocessableContent)
            #expect(long.error["code"] as? String == "too_long")
            #expect(long.error["param"] as? String == "cardReference")
            let good = try await client.send(.get, "/v1/secure-cards?cardReference=sc_" + String(repeating: "a", count: 61), key: fixture.adminA)
            #expect(good.status == .ok)
        }
    }

    @Test(arguments: [
        "/v1/secure-cards?q=4242424242424242", "/v1/secure-cards?q=4242%204242%204242%204242", "/v1/transactions?q=4242-4242-4242-4242",
        "/v1/transactions?q=note%204242.4242.4242.4242", "/v1/secure-cards?holderName=Ada%204242424242424242",
    ])
    func aCardNumberInQIsRefusedLikeInEveryFreeTextField(uri: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.get, uri, key: fixture.adminA)
            #expect(response.status == .unprocessableContent, "\(uri): \(response.text.prefix(300))")
            #expect(response.error["code"] as? String == "card_number_not_allowed")
            #expect(!response.text.contains("4242424242424242") && !response.text.contains("4242 4242"))
            // The searches a card number is not: the last four digits, the BIN.
            for good in ["/v1/secure-cards?q=4242", "/v1/secure-cards?q=424242", "/v1/transactions?q=4242"] {
                #expect(try await client.send(.get, good, key: fixture.adminA).status == .ok, "\(good)")
            }
        }
    }

    @Test func theRuleIsTheServedDocumentsLimits() throws {
        let contract = OpenAPIContract.served
        let sale = try #require(contract.operation(method: "POST", path: "/v1/transactions"))
        guard case .object(let fields) = sale.body else {
            Issue.record("the transaction request is not a closed object")
            return
        }
        #expect(fields["description"] == .text(maxLength: 255, freeText: true))
        let search = try #require(contract.operation(method: "GET", path: "/v1/transactions"))
        #expect(search.textParameters["q"] == .text(maxLength: 200, freeText: true))
        #expect(search.textParameters["from"] == .text(maxLength: nil, freeText: false))
        #expect(TextPolicy.violation(in: String(repeating: "e\u{301}", count: 600), field: "x", maxLength: nil)?.code == "too_long")
        // A body nested deeper than any request type is refused without recursing as deep as it goes.
        let nested = String(repeating: "[", count: 40) + #""deep""# + String(repeating: "]", count: 40)
        #expect(throws: JSONBodyError.tooDeep) { try JSONBodyParser.parse(Array(nested.utf8)) }
        let shallow = String(repeating: #"{"k":"#, count: 8) + #""fine""# + String(repeating: "}", count: 8)
        #expect(OpenAPIContract.textViolation(in: try JSONBodyParser.parse(Array(shallow.utf8)), shape: .any, path: []) == nil)
    }
}
