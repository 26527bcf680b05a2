import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A query parameter or body field an operation does not declare in the OpenAPI
/// document is a 400 `unknown_parameter` naming it, on every operation, and changes nothing.
@Suite struct UnknownParameterTests {
    /// Every documented operation: method, path template, the JSON body schema's example if any.
    private static func operations() throws -> [(method: String, template: String, operation: [String: Any])] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIController.json)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        return paths.sorted { $0.key < $1.key }.flatMap { template, item in
            ["get", "put", "post", "delete", "patch"].compactMap { method in
                ((item as? [String: Any])?[method] as? [String: Any]).map { (method, template, $0) }
            }
        }
    }

    /// A concrete path for a template: every `{parameter}` becomes `x1`.
    private static func concrete(_ template: String) -> String {
        template.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("{") ? "x1" : String($0) }.joined(separator: "/")
    }

    /// The path and bearer to call `template` at `path` with: an admin key; for the card submission,
    /// which takes a capture session's client secret and no API key, a new session's path and secret.
    private static func caller(_ template: String, path: String, fixture: APIFixture, client: some TestClientProtocol) async throws
        -> (path: String, key: String)
    {
        guard template == "/v1/capture-sessions/{id}/card" else { return (path, fixture.adminA) }
        let created = try await client.send(
            .post, "/v1/capture-sessions", key: fixture.adminA, json: #"{"merchantReference": "cap-1", "allowedOrigin": "https://shop.example"}"#)
        let id = try #require(created.json["id"] as? String)
        return ("/v1/capture-sessions/\(id)/card", try #require(created.json["clientSecret"] as? String))
    }

    @Test func aMisspeltFilterIsRefusedAndTheRightOneFilters() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1")).status == .created)
            let sale = #"{"type": "sale", "amount": 1000, "currency": "USD", "merchantReference": "cust-1"}"#
            #expect(try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: sale).status == .created)

            let misspelt = try await client.send(.get, "/v1/transactions?stauts=declined", key: fixture.adminA)
            #expect(misspelt.status == .badRequest)
            #expect(misspelt.error["type"] as? String == "invalid_request_error")
            #expect(misspelt.error["code"] as? String == "unknown_parameter")
            #expect(misspelt.error["param"] as? String == "stauts")
            #expect((misspelt.error["message"] as? String)?.contains("status") == true, "the message lists the parameters the request takes")

            let right = try await client.send(.get, "/v1/transactions?status=declined", key: fixture.adminA)
            #expect(right.status == .ok)
            #expect((right.json["data"] as? [Any])?.isEmpty == true)
            #expect((try await client.send(.get, "/v1/transactions?status=approved&type=sale", key: fixture.adminA).json["data"] as? [Any])?.count == 1)
        }
    }

    @Test func everyOperationRefusesAQueryParameterItDoesNotDeclare() async throws {
        let fixture = try await APIFixture()
        #expect(try Self.operations().count >= 27)
        try await fixture.live { client in
            let operations = try Self.operations()
            for (method, template, _) in operations {
                let uri = Self.concrete(template) + "?limit=5&zzUnknown=1"
                let response = try await client.send(HTTPRequest.Method(method.uppercased())!, uri, key: fixture.adminA)
                let declaresLimit = try #require(OpenAPIContract.served.operation(method: method.uppercased(), path: Self.concrete(template)))
                    .queryParameters.contains("limit")
                #expect(response.status == .badRequest, "\(method) \(template): \(response.status)")
                #expect(response.error["code"] as? String == "unknown_parameter", "\(method) \(template)")
                #expect(response.error["param"] as? String == (declaresLimit ? "zzUnknown" : "limit"), "\(method) \(template)")
            }
        }
    }

    @Test func anUnauthenticatedRequestIsA401WhateverItsQuery() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let anonymous = try await client.send(.get, "/v1/transactions?stauts=declined", key: nil)
            let wrongKey = try await client.send(.get, "/v1/transactions?stauts=declined", key: "vk_wrong")
            #expect(anonymous.status == .unauthorized)
            #expect(wrongKey.status == .unauthorized)
        }
    }

    @Test func everyOperationWithABodyRefusesAFieldItDoesNotDeclare() async throws {
        let fixture = try await APIFixture()
        #expect(try Self.operations().filter { $0.operation["requestBody"] != nil }.count >= 9)
        try await fixture.live { client in
            let withBodies = try Self.operations().filter { $0.operation["requestBody"] != nil }
            for (method, template, _) in withBodies {
                let (path, key) = try await Self.caller(template, path: Self.concrete(template), fixture: fixture, client: client)
                let response = try await client.send(HTTPRequest.Method(method.uppercased())!, path, key: key, json: #"{"zzUnknown": 1}"#)
                #expect(response.status == .badRequest, "\(method) \(template): \(response.status)")
                #expect(response.error["code"] as? String == "unknown_parameter", "\(method) \(template)")
                #expect(response.error["param"] as? String == "zzUnknown", "\(method) \(template)")
            }
        }
    }

    @Test(arguments: [
        (#", "card": {"number": "4242424242424242", "expiryDate": "1230", "cvc": "123"}"#, "card.cvc"),
        (#", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "customer": {"emial": "ada@example.com"}"#, "customer.emial"),
        (#", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "customFields": [{"name": "a", "value": "b"}, {"nmae": "c", "value": "d"}]"#,
         "customFields[1].nmae"),
        (#", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "verfiy": false"#, "verfiy"),
        (#", "card": {"number": "4242424242424242", "expiryDate": "1230", "4111111111111111": "x"}"#, nil),
    ])
    func anUnknownNestedFieldIsRefusedNamedAndNothingIsStored(_ fields: String, _ param: String?) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: #"{"merchantReference": "cust-1""# + fields + "}")
            #expect(response.status == .badRequest)
            #expect(response.error["code"] as? String == "unknown_parameter")
            #expect(response.error["param"] as? String == param)
            #expect(!response.text.contains("4111"), "a key that may be card data is never echoed")
            // The same body with the field spelt right is taken.
            let good = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-2", extra: #", "customer": {"email": "ada@example.com"}"#))
            #expect(good.status == .created)
        }
        #expect(try await fixture.count("secure_cards") == 1)
    }

    @Test func namesTheDocumentForbidsReachTheHandlerForItsOwnAnswer() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1")).status == .created)
            let update = try await client.send(.patch, "/v1/secure-cards/cust-1", key: fixture.adminA, json: #"{"merchantReference": "cust-9"}"#)
            #expect(update.status == .unprocessableContent)
            #expect(update.error["param"] as? String == "merchantReference")
        }
    }

    /// Pins the hand-written request decoders to the document: every top-level property a request
    /// schema declares is read by the decoder (a value of the wrong type is a 422 naming it, where an
    /// ignored field would pass unnoticed), and the contract takes exactly the documented names.
    @Test func everyDocumentedBodyPropertyIsReadByTheDecoder() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIController.json)) as? [String: Any])
            let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
            let withBodies = try Self.operations().filter { $0.operation["requestBody"] != nil }
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1")).status == .created)
            for (method, template, operation) in withBodies {
                let media = try #require(((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any])
                let reference = try #require((media["schema"] as? [String: Any])?["$ref"] as? String)
                let schema = try #require(schemas[String(reference.split(separator: "/").last!)] as? [String: Any])
                let properties = try #require(schema["properties"] as? [String: Any])
                let contract = try #require(OpenAPIContract.served.operation(method: method.uppercased(), path: Self.concrete(template)))
                guard case .object(let fields) = contract.body else {
                    Issue.record("\(method) \(template): the contract does not close the body")
                    continue
                }
                #expect(Set(properties.keys).isSubset(of: Set(fields.keys)), "\(method) \(template)")
                let example = media["example"] as? [String: Any] ?? [:]
                let (path, key) = try await Self.caller(
                    template,
                    path: template.replacingOccurrences(of: "{merchantReference}", with: "cust-1")
                        .replacingOccurrences(of: "{id}", with: "sch_none").replacingOccurrences(of: "{stepId}", with: "stp_none"),
                    fixture: fixture, client: client)
                for name in properties.keys.sorted() {
                    var body = example
                    body[name] = [[Any]()]
                    let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
                    let response = try await client.send(HTTPRequest.Method(method.uppercased())!, path, key: key, json: json)
                    #expect(response.status == .unprocessableContent, "\(method) \(template) \(name): \(response.status) \(response.text)")
                    #expect((response.error["param"] as? String)?.hasPrefix(name) == true, "\(method) \(template) \(name): \(response.text)")
                }
            }
        }
    }

    @Test func theContractMatchesLiteralSegmentsBeforeParametersAndReadsNestedShapes() throws {
        let contract = OpenAPIContract.served
        let preview = try #require(contract.operation(method: "POST", path: "/v1/schedules/preview"))
        let create = try #require(contract.operation(method: "POST", path: "/v1/schedules"))
        #expect(preview.body == create.body)
        #expect(contract.operation(method: "GET", path: "/v1/schedules/sch_1")?.queryParameters == [])
        #expect(contract.operation(method: "GET", path: "/v1/schedules")?.queryParameters == ["limit", "cursor", "status", "secureCardReference"])
        #expect(contract.operation(method: "GET", path: "/v1/schedules/")?.queryParameters == nil)
        #expect(contract.operation(method: "GET", path: "/v1/nothing") == nil)
        #expect(contract.operation(method: "POST", path: "/v1/secure-cardsX") == nil)
        #expect(contract.operation(method: "POST", path: "/v1/secure-card") == nil)
        #expect(contract.operation(method: "POST", path: "v1/secure-cards") == nil)
        #expect(contract.operation(method: "PATCH", path: "/v1/secure-cards/caf%C3%A9-\u{e9}") != nil)
        #expect(contract.operation(method: "PATCH", path: "/v1/secure-cards//") == nil)
        #expect(contract.operation(method: "GET", path: "/v1/transactions")?.queryParameters.isSuperset(of: ["status", "type", "q", "limit", "cursor"]) == true)

        let update = try #require(contract.operation(method: "PATCH", path: "/v1/secure-cards/cust-1"))
        func body(_ json: String) throws -> JSONValue { try JSONBodyParser.parse(Array(json.utf8)) }
        #expect(update.unknownBodyField(in: try body(#"{"customer":{"city":"London"},"customFields":null}"#)) == nil)
        #expect(update.unknownBodyField(in: try body(#"{"customer":null}"#)) == nil)
        #expect(update.unknownBodyField(in: try body(#"{"customer":{"town":"London"}}"#))?.param == "customer.town")
        #expect(update.unknownBodyField(in: try body(#"{"merchantReference":"x"}"#)) == nil, "known to the contract, refused by the handler")
        let transaction = try #require(contract.operation(method: "POST", path: "/v1/transactions"))
        #expect(
            transaction.unknownBodyField(in: try body(#"{"secureCard":{"merchantReference":"c","customFields":[{"name":"a","vaule":"b"}]}}"#))?.param
                == "secureCard.customFields[0].vaule")
        #expect(transaction.unknownQueryParameter(in: ["stauts"])?.status == .badRequest)
    }
}
