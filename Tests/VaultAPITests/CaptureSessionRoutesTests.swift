import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StorageTestSupport
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// Capture sessions over HTTP: a secret admin key creates one, its client secret submits exactly
/// one card (registered as `POST /v1/secure-cards` registers), and a wrong secret, a spent or an
/// expired session get one and the same refusal, counted by the failed-authentication limiter.
@Suite struct CaptureSessionRoutesTests {
    static let session = #"{"merchantReference": "cust-7", "allowedOrigin": "https://shop.example", "customer": {"email": "ada@example.com"}}"#
    static let card = #"{"method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230", "cvv": "123"}}"#

    /// Creates a session with `adminA`: its id and client secret.
    static func create(_ client: some TestClientProtocol, _ fixture: APIFixture, json: String = session) async throws -> (id: String, secret: String) {
        let response = try await client.send(.post, "/v1/capture-sessions", key: fixture.adminA, json: json)
        #expect(response.status == .created, "\(response.text)")
        return (try #require(response.json["id"] as? String), try #require(response.json["clientSecret"] as? String))
    }

    /// The refusal without its request id, to compare refusals with each other.
    static func refusal(_ response: TestResponse) -> String {
        "\(response.status.code) \(response.error["code"] ?? "") \(response.error["message"] ?? "") \(response.headers[.wwwAuthenticate] ?? "")"
    }

    @Test func anAdminKeyCreatesASessionWhoseSecretIsShownOnceAndOtherRolesAreRefused() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            for key in [fixture.readonlyA, fixture.runnerA] {
                let refused = try await client.send(.post, "/v1/capture-sessions", key: key, json: Self.session)
                #expect(refused.status == .forbidden)
            }
            #expect(try await fixture.count("capture_sessions") == 0)
            let created = try await client.send(.post, "/v1/capture-sessions", key: fixture.adminA, json: Self.session)
            #expect(created.status == .created)
            let id = try #require(created.json["id"] as? String)
            let secret = try #require(created.json["clientSecret"] as? String)
            #expect(id.hasPrefix("cs_") && secret.hasPrefix(id + "_secret_"))
            #expect(created.json["status"] as? String == "open")
            #expect(created.json["allowedOrigin"] as? String == "https://shop.example")
            let expiresAt = try #require((created.json["expiresAt"] as? String).flatMap(Timestamp.parse))
            let createdAt = try #require((created.json["createdAt"] as? String).flatMap(Timestamp.parse))
            #expect(expiresAt.timeIntervalSince(createdAt) == 15 * 60)

            let read = try await client.send(.get, "/v1/capture-sessions/\(id)", key: fixture.readonlyA)
            #expect(read.status == .ok)
            #expect(read.json["clientSecret"] == nil, "the secret is shown only once")
            #expect(read.json["secureCardReference"] is NSNull)
            let elsewhere = try await client.send(.get, "/v1/capture-sessions/\(id)", key: fixture.adminB)
            #expect(elsewhere.status == .notFound, "another merchant's session is not found")
            #expect(!(try await fixture.sql.everyRowAsText()).contains(String(secret.dropFirst(id.count + 8))), "only a MAC of the secret is stored")
        }
    }

    @Test func aSessionTakesItsCardForTheConfiguredMinutes() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.yaml")
        try "server:\n  captureSessionMinutes: 5\n".write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try VaultConfiguration.load(path: path, environment: [:])
        #expect(VaultConfiguration().server.captureSessionMinutes == 15)
        let fixture = try await APIFixture { $0.server.captureSessionMinutes = loaded.server.captureSessionMinutes }
        try await fixture.live { client in
            let created = try await client.send(.post, "/v1/capture-sessions", key: fixture.adminA, json: Self.session)
            let expiresAt = try #require((created.json["expiresAt"] as? String).flatMap(Timestamp.parse))
            let createdAt = try #require((created.json["createdAt"] as? String).flatMap(Timestamp.parse))
            #expect(expiresAt.timeIntervalSince(createdAt) == 5 * 60)
        }
    }

    @Test func aSessionThatCouldNeverRegisterItsCardIsRefusedAndNothingIsStored() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("taken"))
            let cases: [(String, HTTPResponse.Status, String)] = [
                (#"{"merchantReference": "cust-1", "allowedOrigin": "http://shop.example"}"#, .unprocessableContent, "allowedOrigin"),
                (#"{"merchantReference": "cust-1", "allowedOrigin": "https://shop.example/checkout"}"#, .unprocessableContent, "allowedOrigin"),
                (#"{"merchantReference": "cust-1", "allowedOrigin": "*"}"#, .unprocessableContent, "allowedOrigin"),
                (#"{"merchantReference": "cust-1", "allowedOrigin": "https://shop.example; script-src *"}"#, .unprocessableContent, "allowedOrigin"),
                (#"{"merchantReference": "bad ref", "allowedOrigin": "https://shop.example"}"#, .unprocessableContent, "merchantReference"),
                (#"{"merchantReference": "cust-1", "allowedOrigin": "https://shop.example", "customer": {"email": "nope"}}"#, .unprocessableContent,
                 "customer.email"),
                (#"{"merchantReference": "taken", "allowedOrigin": "https://shop.example"}"#, .conflict, "merchantReference"),
                (#"{"merchantReference": "cust-1"}"#, .unprocessableContent, "allowedOrigin"),
            ]
            for (json, status, param) in cases {
                let response = try await client.send(.post, "/v1/capture-sessions", key: fixture.adminA, json: json)
                #expect(response.status == status, "\(json): \(response.text)")
                #expect(response.error["param"] as? String == param, "\(json)")
            }
            #expect(try await fixture.count("capture_sessions") == 0)
            let good = try await client.send(.post, "/v1/capture-sessions", key: fixture.adminA, json: Self.session)
            #expect(good.status == .created)
        }
    }

    @Test func theClientSecretRegistersOneCardThroughTheRegistrationService() async throws {
        let fixture = try await APIFixture { $0.webhooks.allowPrivateTargets = true }
        _ = try await fixture.runtime.merchants.update(
            name: "merchant-a", settings: MerchantSettings(callbackURL: "http://127.0.0.1:9/hook"), actor: "test")
        try await fixture.live { client in
            let (id, secret) = try await Self.create(client, fixture)
            let submitted = try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: secret, json: Self.card)
            #expect(submitted.status == .created, "\(submitted.text)")
            let token = try #require(submitted.json["secureCardReference"] as? String)
            #expect(submitted.json["maskedNumber"] as? String == "424242******4242")
            #expect(submitted.json["cardType"] as? String == "visa")
            #expect(Set(submitted.json.keys) == ["description", "secureCardReference", "maskedNumber", "cardType"])
            #expect(!submitted.text.contains("4242424242424242"))

            let card = try await client.send(.get, "/v1/secure-cards/cust-7", key: fixture.adminA)
            #expect(card.json["secureCardReference"] as? String == token)
            #expect((card.json["customer"] as? [String: Any])?["email"] as? String == "ada@example.com", "the session's details came with the card")
            #expect((card.json["verification"] as? [String: Any])?["status"] as? String == "verified", "verified as registration verifies")

            let session = try await client.send(.get, "/v1/capture-sessions/\(id)", key: fixture.adminA)
            #expect(session.json["status"] as? String == "completed")
            #expect(session.json["secureCardReference"] as? String == token)
            #expect(session.json["maskedNumber"] as? String == "424242******4242")
            #expect(
                try await fixture.count("audit_events WHERE action = 'secure_card.registered' AND actor = '\(CaptureSessionService.actor(id))'") == 1)
            #expect(try await fixture.count("webhook_events WHERE type = 'secure_card.registered'") == 1)
            #expect(!fixture.logText.contains("4242424242424242"))
            #expect(!fixture.logText.contains(secret))
        }
    }

    @Test func aSpentSessionAWrongSecretAndAnUnknownSessionGetTheSameRefusal() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let (id, secret) = try await Self.create(client, fixture)
            let (otherID, otherSecret) = try await Self.create(client, fixture, json: #"{"merchantReference": "cust-8", "allowedOrigin": "https://shop.example"}"#)
            let forged = id + "_secret_" + String(repeating: "a", count: 32)
            let first = try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: secret, json: Self.card)
            #expect(first.status == .created)
            let attempts: [(String, String?)] = [
                (id, secret),  // spent
                (id, forged),  // wrong secret
                (id, otherSecret),  // another session's secret
                (otherID, secret),  // a secret naming another session
                ("cs_" + String(repeating: "b", count: 32), secret),  // no such session
                (id, fixture.adminA),  // an API key is no client secret
                (id, nil),  // none
            ]
            var refusals: Set<String> = []
            for (path, key) in attempts {
                let response = try await client.send(.post, "/v1/capture-sessions/\(path)/card", key: key, json: Self.card)
                #expect(response.status == .unauthorized, "\(path)")
                #expect(!response.text.contains("4242424242424242"))
                refusals.insert(Self.refusal(response))
            }
            #expect(refusals.count == 1, "every refusal reads the same: \(refusals)")
            #expect(try await fixture.count("secure_cards WHERE merchant_reference = 'cust-8'") == 0)
            let other = try await client.send(.get, "/v1/capture-sessions/\(otherID)", key: fixture.adminA)
            #expect(other.json["status"] as? String == "open", "refusals changed nothing")
        }
    }

    @Test func anExpiredSessionGetsTheSameRefusal() async throws {
        let fixture = try await APIFixture()
        var services = fixture.runtime.apiServices
        services.captureSessions = CaptureSessionService(store: services.store, cards: services.cards, keyring: services.keyring, lifetime: 0)
        let app = try buildApplication(services: services, background: [], logger: fixture.logger)
        try await app.test(.live) { client in
            let (id, secret) = try await Self.create(client, fixture)
            let response = try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: secret, json: Self.card)
            #expect(response.status == .unauthorized)
            #expect(response.error["code"] as? String == "capture_session_refused")
            let session = try await client.send(.get, "/v1/capture-sessions/\(id)", key: fixture.adminA)
            #expect(session.json["status"] as? String == "expired")
            #expect(try await fixture.count("secure_cards WHERE merchant_reference = 'cust-7'") == 0)
        }
    }

    @Test func refusedSubmissionsAreCountedByTheFailedAuthenticationLimiter() async throws {
        let fixture = try await APIFixture { $0.server.failedAuthLimit = 3 }
        try await fixture.live { client in
            let (id, secret) = try await Self.create(client, fixture)
            let forged = id + "_secret_" + String(repeating: "a", count: 32)
            for _ in 0..<3 {
                let refused = try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: forged, json: Self.card)
                #expect(refused.status == .unauthorized)
            }
            let limited = try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: forged, json: Self.card)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] != nil)
            let genuine = try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: secret, json: Self.card)
            #expect(genuine.status == .created, "the right secret is never limited")
        }
    }

    @Test func twoSubmissionsAtOnceRegisterOneCard() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let (id, secret) = try await Self.create(client, fixture)
            let numbers = ["4242424242424242", "5555555555554444", "4111111111111111", "6011111111111117"]
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for number in numbers {
                    group.addTask {
                        let json = #"{"method": "keyed", "card": {"number": "\#(number)", "expiryDate": "1230"}}"#
                        return try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: secret, json: json).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == .unauthorized }.count == numbers.count - 1)
            #expect(try await fixture.count("secure_cards WHERE merchant_reference = 'cust-7'") == 1)
        }
    }

    @Test func aRefusedCardMayBeCorrectedTwiceThenTheSessionFails() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let (id, secret) = try await Self.create(client, fixture)
            let typo = #"{"method": "keyed", "card": {"number": "4242424242424241", "expiryDate": "1230"}}"#
            let first = try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: secret, json: typo)
            #expect(first.status == .unprocessableContent)
            #expect(first.error["param"] as? String == "card.number")
            let corrected = try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: secret, json: Self.card)
            #expect(corrected.status == .created, "a refused card leaves the session open")

            let (next, nextSecret) = try await Self.create(client, fixture, json: #"{"merchantReference": "cust-9", "allowedOrigin": "https://shop.example"}"#)
            for _ in 0..<CaptureSessionService.maxAttempts {
                let refused = try await client.send(.post, "/v1/capture-sessions/\(next)/card", key: nextSecret, json: typo)
                #expect(refused.status == .unprocessableContent)
            }
            let session = try await client.send(.get, "/v1/capture-sessions/\(next)", key: fixture.adminA)
            #expect(session.json["status"] as? String == "failed")
            let after = try await client.send(.post, "/v1/capture-sessions/\(next)/card", key: nextSecret, json: Self.card)
            #expect(after.status == .unauthorized)
            #expect(try await fixture.count("secure_cards WHERE merchant_reference = 'cust-9'") == 0)
        }
    }

    @Test func theCardBodyIsHeldToTheRegistrationShapeAndNotReadBeforeTheSecret() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let (id, secret) = try await Self.create(client, fixture)
            let smuggled = #"{"method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}, "merchantReference": "other"}"#
            let refused = try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: secret, json: smuggled)
            #expect(refused.status == .badRequest, "a submission cannot name another merchantReference")
            let notJSON = try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: secret, json: "number=4242", headers: [.contentType: "text/plain"])
            #expect(notJSON.status == .unsupportedMediaType)
            let unauthenticated = try await client.send(.post, "/v1/capture-sessions/\(id)/card", key: "nope", json: "{", headers: [.contentType: "text/plain"])
            #expect(unauthenticated.status == .unauthorized, "the secret is checked before the body")
            let session = try await client.send(.get, "/v1/capture-sessions/\(id)", key: fixture.adminA)
            #expect(session.json["status"] as? String == "open")
        }
    }
}
