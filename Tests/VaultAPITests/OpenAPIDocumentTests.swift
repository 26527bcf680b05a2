import Foundation
@testable import GatewayFakes
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Payments
import Scheduler
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
import VaultSQLite
@testable import VaultAppTestSupport

/// The OpenAPI document describes every route and schema, and the server behaves as it says.
@Suite struct OpenAPIDocumentTests {
    static let methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    @Test func documentConvertsToJSONAndDeclaresOpenAPI31() throws {
        #expect(OpenAPIController.json.count > 1000)
        let spec = try OpenAPISpec()
        #expect(spec.root["openapi"] == .string("3.1.0"))
        #expect(spec.root["info"]?["title"]?.string?.isEmpty == false)
        #expect(spec.root["paths"]?.object?.isEmpty == false)
        #expect(spec.root["components"]?["schemas"]?["Error"] != nil)
    }

    @Test func thePaymentCallbackCarriesExactlyTheFieldsTheDocumentDeclaresWithTheHolderAndMerchantNames() throws {
        let declared = try OpenAPISpec().root["components"]?["schemas"]?["TransactionOutcomeEvent"]?["properties"]?["data"]?["properties"]?.object
        let declaredNames = Set(try #require(declared).keys)
        #expect(declaredNames.isSuperset(of: ["holderName", "merchantName"]))
        var transaction = Transaction(
            id: "txn_1", merchantID: "m", type: .sale, amount: 500, currency: try Currency(code: "USD"), gateway: "sandbox", now: Date())
        transaction.apply(GatewayResult(outcome: .declined(code: "card_declined", category: .hard), transactionID: "g1"), now: Date())
        let event = try #require(try PendingWebhookEvent.outcome(of: transaction, parties: CallbackParties(holderName: "Ada Lovelace", merchantName: "Corner Books")))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(event.body.utf8)) as? [String: Any])
        let data = try #require(body["data"] as? [String: Any])
        #expect(Set(data.keys) == declaredNames)
        #expect(data["holderName"] as? String == "Ada Lovelace")
        #expect(data["merchantName"] as? String == "Corner Books")
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsServed() async throws {
        let fixture = try await APIFixture()
        let served = Set(buildRouter(runtime: fixture.runtime).routes.map { route in
            let path = "\(route.path)".split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            return "\(route.method.rawValue.uppercased()) \(path)"
        })
        let documented = Set(try OpenAPISpec().operations.map { "\($0.method.uppercased()) \($0.path)" })
        // The operator console's HTML pages and forms are for browsers, not API clients: they are not
        // part of the document, and nothing else under /console is.
        let console = served.filter { $0.split(separator: " ")[1] == "/console" || $0.split(separator: " ")[1].hasPrefix("/console/") }
        #expect(documented.allSatisfy { !$0.split(separator: " ")[1].hasPrefix("/console") })
        let api = served.subtracting(console)
        #expect(api.subtracting(documented).isEmpty, "routes missing from the document: \(api.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented operations no route serves: \(documented.subtracting(served).sorted())")
        #expect(served.count >= 23)
    }

    @Test func everyOperationHasAUniqueIdASummaryAndASuccessResponse() throws {
        let operations = try OpenAPISpec().operations
        let ids = operations.compactMap { $0.operation["operationId"]?.string }
        #expect(ids.count == operations.count)
        #expect(Set(ids).count == ids.count, "duplicate operationIds")
        for entry in operations {
            let statuses = entry.operation["responses"]?.object?.keys.compactMap { Int($0) } ?? []
            #expect(statuses.contains { (200..<300).contains($0) }, "\(entry.method) \(entry.path) has no 2xx response")
            #expect(entry.operation["summary"]?.string?.isEmpty == false, "\(entry.method) \(entry.path) has no summary")
        }
    }

    @Test func everyPOSTDeclaresTheIdempotencyKeyAndEveryPathParameterIsDeclared() throws {
        let spec = try OpenAPISpec()
        for entry in spec.operations {
            let parameters = (entry.pathItem["parameters"]?.array ?? []) + (entry.operation["parameters"]?.array ?? [])
            let declared = parameters.map(spec.resolve)
            if entry.method == "post" {
                #expect(declared.contains { $0["name"] == .string("Idempotency-Key") && $0["in"] == .string("header") },
                        "POST \(entry.path) does not declare Idempotency-Key")
            }
            let names = entry.path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
            for name in names {
                #expect(declared.contains { $0["name"] == .string(name) && $0["in"] == .string("path") && $0["required"] == .bool(true) },
                        "\(entry.method) \(entry.path) does not declare path parameter \(name)")
            }
        }
    }

    @Test func everyReferenceResolvesAndEveryComponentIsUsed() throws {
        let spec = try OpenAPISpec()
        var references: Set<String> = []
        spec.root.collectReferences(into: &references)
        for reference in references.sorted() {
            #expect(spec.pointer(reference) != nil, "unresolved \(reference)")
        }
        for kind in ["schemas", "responses", "parameters", "headers"] {
            for name in spec.root["components"]?[kind]?.object?.keys.sorted() ?? [] {
                #expect(references.contains("#/components/\(kind)/\(name)"), "unused component \(kind)/\(name)")
            }
        }
    }

    @Test func everyErrorResponseOfTheAPIUsesTheErrorEnvelope() throws {
        let spec = try OpenAPISpec()
        for entry in spec.operations where entry.path.hasPrefix("/v1/") {
            for (status, response) in entry.operation["responses"]?.object ?? [:] where (Int(status) ?? 0) >= 400 {
                let schema = spec.resolve(response)["content"]?["application/json"]?["schema"]
                #expect(schema == .object(["$ref": .string("#/components/schemas/Error")]), "\(entry.method) \(entry.path) \(status)")
            }
        }
    }

    @Test func theSchemaCheckerFindsUndocumentedMissingAndMistypedFields() throws {
        let spec = try OpenAPISpec()
        let error = try #require(spec.pointer("#/components/schemas/Error"))
        let good = JSONValue.object(["error": .object(["type": .string("card_error"), "code": .string("x"), "message": .string("m"), "param": .null])])
        #expect(spec.problems(good, error, at: "$").isEmpty)
        let bad = JSONValue.object([
            "error": .object(["type": .string("oops"), "code": .integer(1), "message": .string("m")]), "extra": .bool(true),
        ])
        let problems = spec.problems(bad, error, at: "$").joined(separator: "\n")
        for expected in ["undocumented key extra", "required key param is missing", "$.error.code", "$.error.type"] {
            #expect(problems.contains(expected), "\(expected) not reported in \(problems)")
        }
        let step = try #require(spec.pointer("#/components/schemas/Step"))
        let stepProblems = spec.problems(.object(["id": .string("stp_1"), "sequence": .integer(0), "date": .string("2030-02-30")]), step, at: "$")
        #expect(stepProblems.contains { $0.contains("below 1") } && stepProblems.contains { $0.contains("not a date") })
    }

    @Test func registeredCardsAnswerExactlyTheDocumentedFields() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let spec = try OpenAPISpec()
            let fields = #"{"fields": [{"name": "ReferenceID", "required": false, "maxLength": 64}]}"#
            try spec.expectDocumented(await client.send(.put, "/v1/custom-fields", key: fixture.adminA, json: fields), "put", "/v1/custom-fields")
            try spec.expectDocumented(await client.send(.get, "/v1/custom-fields", key: fixture.adminA), "get", "/v1/custom-fields")
            let extra = #", "customer": {"email": "ada@example.com", "country": "gb"}, "customFields": [{"name": "ReferenceID", "value": "R-17"}]"#
            let registered = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1", extra: extra))
            #expect(registered.status == .created)
            let card = try spec.expectDocumented(registered, "post", "/v1/secure-cards")
            let declared = spec.declaredKeys(try #require(spec.responseSchema("post", "/v1/secure-cards", status: 201)))
            let keys = Set(card.object?.keys.map { $0 } ?? [])
            #expect(keys.isSubset(of: declared.properties), "undocumented keys: \(keys.subtracting(declared.properties).sorted())")
            #expect(declared.required.isSubset(of: keys), "missing required keys: \(declared.required.subtracting(keys).sorted())")
            let token = try #require(card["secureCardReference"]?.string)

            try spec.expectDocumented(await client.send(.get, "/v1/secure-cards/cust-1", key: fixture.adminA), "get", "/v1/secure-cards/{merchantReference}")
            try spec.expectDocumented(await client.send(.get, "/v1/secure-cards?q=cust&limit=1", key: fixture.readonlyA), "get", "/v1/secure-cards")
            let update = #"{"customer": {"city": "London"}, "customFields": null}"#
            try spec.expectDocumented(
                await client.send(.patch, "/v1/secure-cards/cust-1", key: fixture.adminA, json: update), "patch", "/v1/secure-cards/{merchantReference}")
            try spec.expectDocumented(
                await client.send(.delete, "/v1/secure-cards/cust-1?purge=true", key: fixture.adminA), "delete", "/v1/secure-cards/{merchantReference}")
            try spec.expectDocumented(await client.send(.get, "/v1/secure-cards/\(token)", key: fixture.adminA), "get", "/v1/secure-cards/{merchantReference}")
            try spec.expectDocumented(await client.send(.get, "/v1/audit-events?limit=2", key: fixture.adminA), "get", "/v1/audit-events")
        }
    }

    @Test func schedulesAnswerExactlyTheDocumentedFields() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let spec = try OpenAPISpec()
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("cust-1")).status == .created)
            let body = ScheduleRoutesTests.monthly(extra: #", "externalId": "gym-7""#)
            try spec.expectDocumented(await client.send(.post, "/v1/schedules/preview", key: fixture.adminA, json: body), "post", "/v1/schedules/preview")
            let created = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: body, headers: [HTTPField.Name("Idempotency-Key")!: "k-1"])
            #expect(created.status == .created)
            let schedule = try spec.expectDocumented(created, "post", "/v1/schedules")
            let declared = spec.declaredKeys(try #require(spec.responseSchema("post", "/v1/schedules", status: 201)))
            let keys = Set(schedule.object?.keys.map { $0 } ?? [])
            #expect(keys.isSubset(of: declared.properties), "undocumented keys: \(keys.subtracting(declared.properties).sorted())")
            #expect(declared.required.isSubset(of: keys), "missing required keys: \(declared.required.subtracting(keys).sorted())")
            let id = try #require(schedule["id"]?.string)
            let step = try #require(schedule["steps"]?.array?.last?["id"]?.string)

            let replayed = try await client.send(.post, "/v1/schedules", key: fixture.adminA, json: body, headers: [HTTPField.Name("Idempotency-Key")!: "k-1"])
            #expect(replayed.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            try spec.expectDocumented(replayed, "post", "/v1/schedules")
            try spec.expectDocumented(await client.send(.get, "/v1/schedules?status=pending_confirmation", key: fixture.adminA), "get", "/v1/schedules")
            try spec.expectDocumented(await client.send(.get, "/v1/schedules/\(id)", key: fixture.adminA), "get", "/v1/schedules/{id}")
            try spec.expectDocumented(await client.send(.get, "/v1/schedules/\(id)/steps", key: fixture.adminA), "get", "/v1/schedules/{id}/steps")
            try spec.expectDocumented(
                await client.send(.patch, "/v1/schedules/\(id)", key: fixture.adminA, json: #"{"amount": 2499, "description": null}"#), "patch", "/v1/schedules/{id}")
            for action in ["confirm", "pause", "resume", "confirm"] {
                try spec.expectDocumented(await client.send(.post, "/v1/schedules/\(id)/\(action)", key: fixture.adminA), "post", "/v1/schedules/{id}/\(action)")
            }
            try spec.expectDocumented(
                await client.send(.post, "/v1/schedules/\(id)/steps/\(step)/skip", key: fixture.adminA), "post", "/v1/schedules/{id}/steps/{stepId}/skip")
            try spec.expectDocumented(await client.send(.post, "/v1/schedules/\(id)/cancel", key: fixture.adminA), "post", "/v1/schedules/{id}/cancel")
        }
    }

    @Test func receiptsAnswerExactlyTheDocumentedFields() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let spec = try OpenAPISpec()
            let sale = TransactionRoutesTests.rawSale(extra: #", "receiptEmail": "ada@example.org""#)
            try spec.expectDocumented(await client.send(.post, "/v1/transactions", key: fixture.adminA, json: sale), "post", "/v1/transactions")
            try spec.expectDocumented(await client.send(.get, "/v1/receipts?status=pending", key: fixture.readonlyA), "get", "/v1/receipts")
            _ = try await fixture.runtime.receiptDeliverer(logger: fixture.logger).deliverDue(now: Date().addingTimeInterval(1))
            let listed = try spec.expectDocumented(await client.send(.get, "/v1/receipts?limit=1", key: fixture.adminA), "get", "/v1/receipts")
            let declared = spec.declaredKeys(try #require(spec.responseSchema("get", "/v1/receipts", status: 200)))
            #expect(Set(listed.object?.keys.map { $0 } ?? []) == declared.required)
            #expect(listed["data"]?.array?.count == 1)
            try spec.expectDocumented(await client.send(.get, "/v1/receipts?status=bounced", key: fixture.adminA), "get", "/v1/receipts")
        }
    }

    @Test func transactionsAnswerExactlyTheDocumentedFields() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let spec = try OpenAPISpec()
            func raw(_ type: String, _ number: String = "4242424242424242") -> String {
                #"{"type": "\#(type)", "amount": 5000, "currency": "USD", "method": "keyed", "card": {"number": "\#(number)", "expiryDate": "1230", "cvv": "123"}}"#
            }
            let authorized = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: raw("authorize"))
            let authorization = try spec.expectDocumented(authorized, "post", "/v1/transactions")
            let authID = try #require(authorization["id"]?.string)
            let declared = spec.declaredKeys(try #require(spec.responseSchema("post", "/v1/transactions", status: 201)))
            let keys = Set(authorization.object?.keys.map { $0 } ?? [])
            #expect(keys == declared.properties && declared.required == keys)
            try spec.expectDocumented(
                await client.send(.post, "/v1/transactions/\(authID)/capture", key: fixture.adminA, json: #"{"amount": 3000}"#), "post",
                "/v1/transactions/{id}/capture")
            try spec.expectDocumented(
                await client.send(.post, "/v1/transactions/\(authID)/refund", key: fixture.adminA, json: #"{"amount": 1000}"#), "post",
                "/v1/transactions/{id}/refund")
            let sale = try spec.expectDocumented(await client.send(.post, "/v1/transactions", key: fixture.adminA, json: raw("sale")), "post", "/v1/transactions")
            let saleID = try #require(sale["id"]?.string)
            try spec.expectDocumented(await client.send(.post, "/v1/transactions/\(saleID)/void", key: fixture.adminA), "post", "/v1/transactions/{id}/void")
            try spec.expectDocumented(await client.send(.post, "/v1/transactions/\(saleID)/refund", key: fixture.adminA), "post", "/v1/transactions/{id}/refund")
            let declined = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: raw("sale", "4000000000000002"))
            #expect(declined.status.code == 402)
            #expect(try spec.expectDocumented(declined, "post", "/v1/transactions")["transaction"]?["status"] == .string("declined"))
            try spec.expectDocumented(await client.send(.get, "/v1/transactions?type=sale&limit=1", key: fixture.readonlyA), "get", "/v1/transactions")
            try spec.expectDocumented(await client.send(.get, "/v1/transactions/\(authID)", key: fixture.readonlyA), "get", "/v1/transactions/{id}")
            try spec.expectDocumented(await client.send(.get, "/v1/transactions/txn_none", key: fixture.adminA), "get", "/v1/transactions/{id}")
        }
    }

    @Test func theReviewQueueAnswersExactlyTheDocumentedFields() async throws {
        let setup = try await InDoubtTransactionRoutesTests.setUp()
        defer { Task { await setup.fake.stop() } }
        try await setup.fixture.live { client in
            let spec = try OpenAPISpec()
            let id = try await ReviewQueueRoutesTests.transactionInReview(setup, client: client)
            let page = try spec.expectDocumented(await client.send(.get, "/v1/review-queue", key: setup.readonly), "get", "/v1/review-queue")
            let item = try #require(page["data"]?.array?.first?.object)
            let itemSchema = try #require(spec.pointer("#/components/schemas/ReviewQueueItem"))
            #expect(Set(item.keys) == spec.declaredKeys(itemSchema).properties)
            try spec.expectDocumented(await client.send(.get, "/v1/review-queue?cursor=x", key: setup.admin), "get", "/v1/review-queue")
            try spec.expectDocumented(
                await client.send(.post, "/v1/review-queue/lookup", key: setup.admin, json: #"{"items": [{"kind": "transaction", "id": "\#(id)"}, {"kind": "step", "id": "stp_x"}]}"#),
                "post", "/v1/review-queue/lookup")
            try spec.expectDocumented(
                await client.send(.post, "/v1/review-queue/lookup", key: setup.admin, json: #"{"items": []}"#), "post", "/v1/review-queue/lookup")
            try spec.expectDocumented(
                await client.send(
                    .post, "/v1/review-queue/resolve", key: setup.admin,
                    json: #"{"items": [{"kind": "transaction", "id": "\#(id)", "outcome": "not_charged"}, {"kind": "step", "id": "stp_x", "outcome": "not_charged"}]}"#),
                "post", "/v1/review-queue/resolve")
            try spec.expectDocumented(
                await client.send(.post, "/v1/review-queue/resolve", key: setup.readonly, json: #"{"items": []}"#), "post", "/v1/review-queue/resolve")
        }
    }

    @Test func theChargeRunListAnswersExactlyTheDocumentedFields() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let spec = try OpenAPISpec()
            let started = try await client.send(.post, "/v1/charge-runs", key: fixture.adminA)
            _ = try await ChargeRunPolling.waitForRun(client, key: fixture.adminA, id: try #require(started.json["id"] as? String))
            _ = try await ChargeRunListRoutesTests.recordCLIRun(fixture, merchantID: nil, summary: nil)
            let page = try spec.expectDocumented(await client.send(.get, "/v1/charge-runs", key: fixture.readonlyA), "get", "/v1/charge-runs")
            let runs = try #require(page["data"]?.array)
            let itemSchema = try #require(spec.pointer("#/components/schemas/ChargeRunListItem"))
            #expect(runs.count == 2)
            for run in runs { #expect(Set(run.object?.keys.map { $0 } ?? []) == spec.declaredKeys(itemSchema).properties) }
            try spec.expectDocumented(await client.send(.get, "/v1/charge-runs?limit=0", key: fixture.adminA), "get", "/v1/charge-runs")
            try spec.expectDocumented(await client.send(.get, "/v1/charge-runs", key: fixture.runnerA), "get", "/v1/charge-runs")
        }
    }

    @Test func theWebhookEventsAnswerExactlyTheDocumentedFields() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let spec = try OpenAPISpec()
            #expect(try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("hook-1", verify: false)).status == .created)
            let page = try spec.expectDocumented(await client.send(.get, "/v1/webhook-events", key: fixture.readonlyA), "get", "/v1/webhook-events")
            let event = try #require(page["data"]?.array?.first?.object)
            let schema = try #require(spec.pointer("#/components/schemas/WebhookEventDelivery"))
            #expect(Set(event.keys) == spec.declaredKeys(schema).properties)
            let id = try #require(event["id"]?.string)
            try spec.expectDocumented(await client.send(.get, "/v1/webhook-events?status=x", key: fixture.adminA), "get", "/v1/webhook-events")
            try spec.expectDocumented(
                await client.send(.post, "/v1/webhook-events/\(id)/resend", key: fixture.adminA), "post", "/v1/webhook-events/{id}/resend")
            try spec.expectDocumented(
                await client.send(.post, "/v1/webhook-events/evt_none/resend", key: fixture.adminA), "post", "/v1/webhook-events/{id}/resend")
            try spec.expectDocumented(
                await client.send(.post, "/v1/webhook-events/\(id)/resend", key: fixture.readonlyA), "post", "/v1/webhook-events/{id}/resend")
        }
    }

    @Test func errorsAndOperationalRoutesAnswerTheDocumentedShapes() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let spec = try OpenAPISpec()
            let invalid = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("bad ref"))
            #expect(invalid.status == .unprocessableContent)
            let envelope = try spec.expectDocumented(invalid, "post", "/v1/secure-cards")
            let declared = spec.declaredKeys(try #require(spec.pointer("#/components/schemas/Error")?["properties"]?["error"]))
            let keys = Set(envelope["error"]?.object?.keys.map { $0 } ?? [])
            #expect(keys == declared.properties && keys == declared.required)
            #expect(Set(envelope.object?.keys.map { $0 } ?? []) == ["error"])

            let card = keyedCard("cust-1")
            let cases: [(HTTPRequest.Method, String, String?, String?, HTTPFields, String, String)] = [
                (.get, "/v1/secure-cards", nil, nil, [:], "get", "/v1/secure-cards"),
                (.post, "/v1/secure-cards", fixture.readonlyA, card, [:], "post", "/v1/secure-cards"),
                (.post, "/v1/secure-cards", fixture.adminA, "{", [:], "post", "/v1/secure-cards"),
                (.post, "/v1/secure-cards", fixture.adminA, card, [.contentType: "text/plain"], "post", "/v1/secure-cards"),
                (.post, "/v1/secure-cards", fixture.adminA, card, [:], "post", "/v1/secure-cards"),
                (.post, "/v1/secure-cards", fixture.adminA, card, [:], "post", "/v1/secure-cards"),
                (.get, "/v1/secure-cards?limit=0", fixture.adminA, nil, [:], "get", "/v1/secure-cards"),
                (.get, "/v1/secure-cards/nobody", fixture.adminA, nil, [:], "get", "/v1/secure-cards/{merchantReference}"),
                (.get, "/v1/audit-events", fixture.readonlyA, nil, [:], "get", "/v1/audit-events"),
                (.get, "/v1/schedules?status=sleeping", fixture.adminA, nil, [:], "get", "/v1/schedules"),
                (.post, "/v1/schedules/sch_none/confirm", fixture.adminA, nil, [:], "post", "/v1/schedules/{id}/confirm"),
                (.get, "/healthz", nil, nil, [:], "get", "/healthz"),
                (.get, "/readyz", nil, nil, [:], "get", "/readyz"),
                (.get, "/openapi.json", nil, nil, [:], "get", "/openapi.json"),
            ]
            var statuses: Set<Int> = []
            for (method, uri, key, json, headers, documentedMethod, template) in cases {
                let response = try await client.send(method, uri, key: key, json: json, headers: headers)
                try spec.expectDocumented(response, documentedMethod, template)
                // `/readyz` answers 503 when its checks take longer than its limit, as they may on a
                // loaded machine: either answer is documented, and its status is no evidence here.
                if uri == "/readyz" {
                    #expect([200, 503].contains(response.status.code))
                } else {
                    statuses.insert(response.status.code)
                }
            }
            #expect(statuses == [200, 201, 400, 401, 403, 404, 409, 415, 422])
            let served = try await client.send(.get, "/openapi.json", key: nil)
            #expect(Array(served.body.readableBytesView) == OpenAPIController.json)
        }
    }
}

/// A JSON value decoded exactly: integers stay integers and booleans stay booleans.
private enum JSONValue: Decodable, Sendable, Equatable {
    case null, bool(Bool), integer(Int64), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    subscript(key: String) -> JSONValue? { object?[key] }
    var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    var string: String? { if case .string(let value) = self { value } else { nil } }
    var integer: Int64? { if case .integer(let value) = self { value } else { nil } }

    func collectReferences(into references: inout Set<String>) {
        switch self {
        case .object(let members):
            if let reference = members["$ref"]?.string { references.insert(reference) }
            for member in members.values { member.collectReferences(into: &references) }
        case .array(let items):
            for item in items { item.collectReferences(into: &references) }
        default: break
        }
    }
}

/// The served OpenAPI document, with just enough JSON Schema to check live responses against it.
private struct OpenAPISpec {
    let root: JSONValue

    init() throws {
        root = try JSONDecoder().decode(JSONValue.self, from: Data(OpenAPIController.json))
    }

    /// Every operation with its path template, lower-case method and path item.
    var operations: [(path: String, method: String, operation: JSONValue, pathItem: JSONValue)] {
        (root["paths"]?.object ?? [:]).sorted { $0.key < $1.key }.flatMap { path, item in
            OpenAPIDocumentTests.methods.compactMap { method in item[method].map { (path, method, $0, item) } }
        }
    }

    /// The value at a local reference such as `#/components/schemas/Error`.
    func pointer(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var value: JSONValue? = root
        for token in reference.dropFirst(2).split(separator: "/") {
            value = value?[token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")]
        }
        return value
    }

    /// Follows `$ref` until a value without one.
    func resolve(_ value: JSONValue) -> JSONValue {
        guard let reference = value["$ref"]?.string, let target = pointer(reference) else { return value }
        return resolve(target)
    }

    func responseSchema(_ method: String, _ template: String, status: Int) -> JSONValue? {
        guard let response = root["paths"]?[template]?[method]?["responses"]?[String(status)] else { return nil }
        return resolve(response)["content"]?["application/json"]?["schema"]
    }

    /// The properties a schema declares and those it requires, through `$ref` and `allOf`.
    func declaredKeys(_ schema: JSONValue) -> (properties: Set<String>, required: Set<String>) {
        let schema = resolve(schema)
        var properties = Set(schema["properties"]?.object?.keys.map { $0 } ?? [])
        var required = Set(schema["required"]?.array?.compactMap(\.string) ?? [])
        for part in schema["allOf"]?.array ?? [] {
            let keys = declaredKeys(part)
            properties.formUnion(keys.properties)
            required.formUnion(keys.required)
        }
        return (properties, required)
    }

    /// Checks that the status is documented for the operation and the body matches its schema.
    @discardableResult
    func expectDocumented(
        _ response: TestResponse, _ method: String, _ template: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> JSONValue {
        let status = Int(response.status.code)
        guard root["paths"]?[template]?[method]?["responses"]?[String(status)] != nil else {
            Issue.record("\(method.uppercased()) \(template) answered \(status), which the document does not list", sourceLocation: sourceLocation)
            return .null
        }
        guard let schema = responseSchema(method, template, status: status) else {
            let contentType = response.headers[.contentType] ?? ""
            #expect(!contentType.hasPrefix("application/json"), "\(method.uppercased()) \(template) \(status): JSON without a documented schema",
                    sourceLocation: sourceLocation)
            return .null
        }
        let body = try JSONDecoder().decode(JSONValue.self, from: Data(response.body.readableBytesView))
        let problems = problems(body, schema, at: "$")
        #expect(problems.isEmpty, "\(method.uppercased()) \(template) \(status): \(problems)", sourceLocation: sourceLocation)
        return body
    }

    /// Where `value` breaks `schema` (the JSON Schema keywords this document uses).
    func problems(_ value: JSONValue, _ schema: JSONValue, at path: String) -> [String] {
        var found: [String] = []
        if let reference = schema["$ref"]?.string {
            guard let target = pointer(reference) else { return ["\(path): unresolved \(reference)"] }
            found += problems(value, target, at: path)
        }
        if let type = schema["type"] {
            let names = type.string.map { [$0] } ?? type.array?.compactMap(\.string) ?? []
            guard names.contains(where: { Self.matches(value, type: $0) }) else { return found + ["\(path): \(value) is not \(names)"] }
        }
        if let options = schema["enum"]?.array, !options.contains(value) { found.append("\(path): \(value) is not in the enum") }
        if let constant = schema["const"], constant != value { found.append("\(path): \(value) is not \(constant)") }
        switch value {
        case .string(let text):
            if let pattern = schema["pattern"]?.string, text.range(of: pattern, options: .regularExpression) == nil {
                found.append("\(path): '\(text)' does not match \(pattern)")
            }
            if let most = schema["maxLength"]?.integer, text.count > most { found.append("\(path): longer than \(most)") }
            if let least = schema["minLength"]?.integer, text.count < least { found.append("\(path): shorter than \(least)") }
            if schema["format"] == .string("date-time"), Timestamp.parse(text) == nil { found.append("\(path): '\(text)' is not a date-time") }
            if schema["format"] == .string("date"), CivilDate(iso: text) == nil { found.append("\(path): '\(text)' is not a date") }
        case .integer(let number):
            if let least = schema["minimum"]?.integer, number < least { found.append("\(path): below \(least)") }
            if let most = schema["maximum"]?.integer, number > most { found.append("\(path): above \(most)") }
        case .array(let items):
            if let itemSchema = schema["items"] {
                for (index, item) in items.enumerated() { found += problems(item, itemSchema, at: "\(path)[\(index)]") }
            }
        case .object(let members):
            for key in schema["required"]?.array?.compactMap(\.string) ?? [] where members[key] == nil {
                found.append("\(path): required key \(key) is missing")
            }
            let properties = schema["properties"]?.object ?? [:]
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                if let propertySchema = properties[key] {
                    found += problems(member, propertySchema, at: "\(path).\(key)")
                } else if schema["additionalProperties"] == .bool(false) {
                    found.append("\(path): undocumented key \(key)")
                } else if schema["unevaluatedProperties"] == .bool(false), !declaredKeys(schema).properties.contains(key) {
                    found.append("\(path): undocumented key \(key)")
                } else if let extra = schema["additionalProperties"], extra.object != nil {
                    found += problems(member, extra, at: "\(path).\(key)")
                }
            }
        default:
            break
        }
        for part in schema["allOf"]?.array ?? [] { found += problems(value, part, at: path) }
        if let options = schema["anyOf"]?.array, !options.contains(where: { problems(value, $0, at: path).isEmpty }) {
            found.append("\(path): matches none of anyOf")
        }
        if let options = schema["oneOf"]?.array, options.filter({ problems(value, $0, at: path).isEmpty }).count != 1 {
            found.append("\(path): does not match exactly one of oneOf")
        }
        if let excluded = schema["not"], problems(value, excluded, at: path).isEmpty { found.append("\(path): matches a 'not' schema") }
        return found
    }

    private static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("integer", .integer), ("number", .integer), ("number", .number),
             ("string", .string), ("array", .array), ("object", .object):
            true
        default:
            false
        }
    }
}
