import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

@Suite struct ServerFoundationTests {
    @Test func healthReadinessMetricsAndOpenAPIAnswerWithoutAKey() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let r1 = try await client.send(.get, "/healthz", key: nil)
            #expect(r1.json["status"] as? String == "ok")
            let ready = try await client.send(.get, "/readyz", key: nil)
            #expect(ready.status == .ok)
            #expect(ready.json["keys"] as? String == "ok")
            let openapi = try await client.send(.get, "/openapi.json", key: nil)
            #expect(openapi.json["openapi"] as? String == "3.1.0")
        }
        // Metrics answer without a key on their own listener.
        try await fixture.servingWithMetrics { _, metrics in
            let scraped = try await MetricsListenerTests.get("/metrics", port: metrics)
            #expect(scraped.hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test func everyResponseCarriesARequestID() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.get, "/healthz", key: nil)
            #expect(response.headers[HTTPField.Name("X-Request-Id")!]?.isEmpty == false)
        }
    }

    @Test(arguments: [nil, "", "Bearer", "Bearer nonsense", "Basic dXNlcjpwYXNz", "Bearer vk_aaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"])
    func requestsWithoutAValidKeyGet401WithTheEnvelope(_ authorization: String?) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            var headers: HTTPFields = [:]
            if let authorization { headers[.authorization] = authorization }
            let response = try await client.execute(uri: "/v1/secure-cards", method: .get, headers: headers) { $0 }
            #expect(response.status == .unauthorized)
            #expect(response.error["type"] as? String == "authentication_error")
            #expect(response.error["code"] as? String == "invalid_api_key")
            #expect(response.headers[.wwwAuthenticate] == "Bearer")
        }
    }

    @Test func aRevokedKeyGets401() async throws {
        let fixture = try await APIFixture()
        let key = try await fixture.runtime.merchants.issueKey(merchantName: "merchant-a", role: .admin, actor: "test")
        try await fixture.runtime.merchants.revokeKey(merchantName: "merchant-a", keyID: key.record.id, actor: "test")
        try await fixture.live { client in
            let response = try await client.send(.get, "/v1/secure-cards", key: key.bearer)
            #expect(response.status == .unauthorized)
        }
    }

    @Test func readonlyKeysMayReadButNotWrite() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let r2 = try await client.send(.get, "/v1/secure-cards", key: fixture.readonlyA)
            #expect(r2.status == .ok)
            let write = try await client.send(.post, "/v1/secure-cards", key: fixture.readonlyA, json: keyedCard("c1"))
            #expect(write.status == .forbidden)
            #expect(write.error["type"] as? String == "permission_error")
            let put = try await client.send(.put, "/v1/custom-fields", key: fixture.readonlyA, json: #"{"fields": []}"#)
            #expect(put.status == .forbidden)
        }
        #expect(try await fixture.count("secure_cards") == 0)
    }

    @Test func runnerKeysMayOnlyUseChargeRuns() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let register = try await client.send(.post, "/v1/secure-cards", key: fixture.runnerA, json: keyedCard("c1"))
            #expect(register.status == .forbidden)
            let read = try await client.send(.get, "/v1/secure-cards", key: fixture.runnerA)
            #expect(read.status == .forbidden)
            let run = try await client.send(.post, "/v1/charge-runs", key: fixture.runnerA)
            #expect(run.status == .accepted)
        }
    }

    @Test func auditEventsAreForAdminKeysOnly() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let r5 = try await client.send(.get, "/v1/audit-events", key: fixture.readonlyA)
            #expect(r5.status == .forbidden)
            let events = try await client.send(.get, "/v1/audit-events?limit=2", key: fixture.adminA)
            #expect(events.status == .ok)
            #expect((events.json["data"] as? [Any])?.count == 2)
            #expect(events.json["nextCursor"] is String)
        }
    }

    @Test func unknownRoutesGet404WithTheEnvelope() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(.get, "/v1/nothing-here", key: fixture.adminA)
            #expect(response.status == .notFound)
            #expect(response.error["type"] as? String == "not_found_error")
        }
    }

    @Test(arguments: [
        (HTTPRequest.Method.trace, "/v1/schedules", "GET, POST"),
        (.delete, "/v1/transactions", "GET, POST"),
        (.put, "/v1/schedules/sch_none", "GET, PATCH"),
        (.get, "/v1/schedules/preview", "POST"),
        (.post, "/v1/secure-cards/cust-1", "DELETE, GET, PATCH"),
        (.trace, "/healthz", "GET"),
        (.post, "/openapi.json", "GET"),
    ])
    func aKnownPathWithAnotherMethodGets405WithAllowAndTheEnvelope(_ method: HTTPRequest.Method, _ path: String, _ allow: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            for key in [fixture.adminA, nil] {
                let response = try await client.send(method, path, key: key, json: [.get, .trace].contains(method) ? nil : "{}")
                #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                #expect(response.headers[.allow] == allow)
                #expect(response.error["type"] as? String == "invalid_request_error")
                #expect(response.error["code"] as? String == "method_not_allowed")
                #expect(response.headers[HTTPField.Name("X-Request-Id")!]?.isEmpty == false)
            }
        }
    }

    @Test func anUnknownPathIsStill404WhateverTheMethod() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            for path in ["/v1/schedules/sch_1/nothing", "/v1/charge-runs/run_1/steps", "/v2/schedules"] {
                let response = try await client.send(.trace, path, key: fixture.adminA)
                #expect(response.status == .notFound, "\(path)")
                #expect(response.headers[.allow] == nil)
            }
        }
    }

    @Test func malformedJSONIs400AndChangesNothing() async throws {
        let fixture = try await APIFixture()
        let auditBefore = try await fixture.count("audit_events")
        try await fixture.live { client in
            let response = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: #"{"merchantReference": "#)
            #expect(response.status == .badRequest)
            #expect(response.error["code"] as? String == "invalid_json")
            #expect(response.error["param"] is NSNull)
        }
        #expect(try await fixture.count("secure_cards") == 0)
        #expect(try await fixture.count("audit_events") == auditBefore)
    }

    @Test func invalidUTF8Is400() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            var bytes = ByteBuffer(string: #"{"merchantReference": ""#)
            bytes.writeBytes([0xFF, 0xFE, 0xC0])
            bytes.writeString(#""}"#)
            let response = try await client.execute(
                uri: "/v1/secure-cards", method: .post,
                headers: [.authorization: "Bearer \(fixture.adminA)", .contentType: "application/json"], body: bytes) { $0 }
            #expect(response.status == .badRequest)
        }
        #expect(try await fixture.count("secure_cards") == 0)
    }

    @Test func bodiesOverTheLimitGet413() async throws {
        let fixture = try await APIFixture { $0.server.maxBodyBytes = 4096 }
        try await fixture.live { client in
            let huge = #"{"merchantReference": "x", "pad": ""# + String(repeating: "a", count: 10_000) + #""}"#
            let response = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: huge)
            #expect(response.status == .contentTooLarge)
            #expect(response.error["code"] as? String == "body_too_large")
        }
        #expect(try await fixture.count("secure_cards") == 0)
    }

    @Test func aTenMegabyteBodyGets413WithTheDefaultLimit() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let huge = String(repeating: " ", count: 10 * 1024 * 1024)
            let r6 = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: huge)
            #expect(r6.status == .contentTooLarge)
        }
    }

    @Test func nonJSONBodiesGet415() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.send(
                .post, "/v1/secure-cards", key: fixture.adminA, json: "merchantReference=x", headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(response.status == .unsupportedMediaType)
            #expect(response.error["code"] as? String == "unsupported_media_type")
        }
        #expect(try await fixture.count("secure_cards") == 0)
    }

    @Test func theSameIdempotencyKeyAndBodyReplaysTheFirstResponse() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let headers: HTTPFields = [.init("Idempotency-Key")!: "reg-1"]
            let first = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("c1"), headers: headers)
            #expect(first.status == .created)
            let second = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("c1"), headers: headers)
            #expect(second.status == .created)
            #expect(second.text == first.text)
            #expect(second.headers[.init("Idempotent-Replayed")!] == "true")
        }
        #expect(try await fixture.count("secure_cards") == 1)
    }

    @Test func theSameIdempotencyKeyWithAnotherBodyIs409() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let headers: HTTPFields = [.init("Idempotency-Key")!: "reg-1"]
            let r7 = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("c1"), headers: headers)
            #expect(r7.status == .created)
            let reuse = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("c2"), headers: headers)
            #expect(reuse.status == .conflict)
            #expect(reuse.error["code"] as? String == "idempotency_key_reused")
        }
        #expect(try await fixture.count("secure_cards") == 1)
    }

    @Test func idempotencyKeysAreScopedPerMerchant() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let headers: HTTPFields = [.init("Idempotency-Key")!: "same"]
            let r8 = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("c1"), headers: headers)
            #expect(r8.status == .created)
            let r9 = try await client.send(.post, "/v1/secure-cards", key: fixture.adminB, json: keyedCard("c1"), headers: headers)
            #expect(r9.status == .created)
        }
        #expect(try await fixture.count("secure_cards") == 2)
    }

    @Test func anErrorResponseIsReplayedToo() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let headers: HTTPFields = [.init("Idempotency-Key")!: "bad-1"]
            let body = keyedCard("c1", number: "4242424242424241")
            let first = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: headers)
            #expect(first.status == .unprocessableContent)
            let second = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: body, headers: headers)
            #expect(second.text == first.text)
        }
    }

    @Test func listsRejectOutOfRangeLimitsAndForeignCursors() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            for query in ["limit=0", "limit=101", "limit=abc", "cursor=%%%", "cursor=bm90LWEtY3Vyc29y"] {
                let response = try await client.send(.get, "/v1/secure-cards?\(query)", key: fixture.adminA)
                #expect(response.status == .unprocessableContent, "\(query)")
            }
        }
    }
}
