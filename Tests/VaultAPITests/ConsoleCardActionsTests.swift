import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport

/// The console's card actions, through `SecureCardService` as the API's: customer details and
/// custom field values updated, a card deleted after a confirmation and purged only when its
/// merchant reference is typed; updating is support's and admin's, deleting and purging admin's (a
/// role below is shown no form and refused a forged post: `ConsoleScheduleChangeTests` for support), every post carrying the session's CSRF token, bad input a 4xx that changes nothing.
@Suite struct ConsoleCardActionsTests {
    typealias Console = ConsoleRoutesTests

    @Test func aSupportOperatorUpdatesCustomerDetailsAndCustomFieldsAndAReadOnlyOneCannot() async throws {
        let fixture = try await APIFixture()
        let supportSecret = try await Console.enrol(fixture, "sam", role: .support)
        let viewerSecret = try await Console.enrol(fixture, "viewer", role: .readonly)
        try await fixture.live { client in
            let fields = try await client.send(
                .put, "/v1/custom-fields", key: fixture.adminA, json: #"{"fields": [{"name": "loyalty", "required": false, "maxLength": 10}]}"#)
            #expect(fields.status == .ok)
            let card = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("order-31", verify: false))
            let token = try #require(card.json["secureCardReference"] as? String)
            let path = "/console/cards/\(fixture.merchantA.id)/\(token)"

            let viewer = try await Console.signIn(client, "viewer", secret: viewerSecret)
            let seen = try await Console.get(client, path, cookie: viewer)
            #expect(seen.status == .ok)
            for action in ["/update", "/delete", "/purge"] { #expect(!seen.text.contains(path + action), "\(action)") }
            let forged = try await Console.post(
                client, path + "/update", [("csrf", try Console.csrf(in: seen.text)), ("email", "eve@example.com")], cookie: viewer)
            #expect(forged.status == .forbidden)

            let sam = try await Console.signIn(client, "sam", secret: supportSecret)
            let detail = try await Console.get(client, path, cookie: sam)
            #expect(detail.text.contains(path + "/update") && detail.text.contains("name=\"field.loyalty\""))
            let csrf = try Console.csrf(in: detail.text)
            #expect(try await Console.post(client, path + "/update", [("email", "eve@example.com")], cookie: sam).status == .forbidden)
            let tooLong = try await Console.post(client, path + "/update", [("csrf", csrf), ("field.loyalty", "ABCDEFGHIJK")], cookie: sam)
            #expect(tooLong.status == .unprocessableContent)
            let badEmail = try await Console.post(client, path + "/update", [("csrf", csrf), ("email", "not an address")], cookie: sam)
            #expect(badEmail.status == .unprocessableContent)
            #expect(try await fixture.count("audit_events WHERE action = 'secure_card.updated'") == 0, "refusals change nothing")

            let updated = try await Console.post(
                client, path + "/update", [("csrf", csrf), ("email", "ada@example.com"), ("city", "London"), ("field.loyalty", "L-1")], cookie: sam)
            #expect(updated.status == .seeOther)
            let api = try await client.send(.get, "/v1/secure-cards/order-31", key: fixture.adminA)
            #expect(api.text.contains("ada@example.com") && api.text.contains("London") && api.text.contains("L-1"))
            #expect(!api.text.contains("eve@example.com"))
        }
        #expect(try await fixture.count("audit_events WHERE action = 'secure_card.updated' AND actor = 'operator:sam'") == 1)
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:viewer'") == 1)
    }

    @Test func aCardIsDeletedAfterAConfirmationAndPurgedOnlyWhenItsReferenceIsTyped() async throws {
        let fixture = try await APIFixture()
        // Deleting and purging are admin's, as in the API.
        let supportSecret = try await Console.enrol(fixture, "sam", role: .admin)
        let viewerSecret = try await Console.enrol(fixture, "viewer", role: .readonly)
        try await fixture.live { client in
            let card = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("order-9", verify: false))
            let token = try #require(card.json["secureCardReference"] as? String)
            let path = "/console/cards/\(fixture.merchantA.id)/\(token)"

            let viewer = try await Console.signIn(client, "viewer", secret: viewerSecret)
            let viewerCSRF = try Console.csrf(in: try await Console.get(client, path, cookie: viewer).text)
            #expect(try await Console.post(client, path + "/purge", [("csrf", viewerCSRF), ("reference", "order-9")], cookie: viewer).status == .forbidden)
            #expect(try await Console.post(client, path + "/delete", [("csrf", viewerCSRF), ("confirm", "yes")], cookie: viewer).status == .forbidden)

            let sam = try await Console.signIn(client, "sam", secret: supportSecret)
            let csrf = try Console.csrf(in: try await Console.get(client, path, cookie: sam).text)
            let confirm = try await Console.post(client, path + "/delete", [("csrf", csrf)], cookie: sam)
            #expect(confirm.status == .ok && confirm.text.contains("Delete card <strong>order-9</strong>"))
            #expect(try await client.send(.get, "/v1/secure-cards/order-9", key: fixture.adminA).status == .ok, "nothing is deleted before the confirmation")
            let deleted = try await Console.post(client, path + "/delete", [("csrf", csrf), ("confirm", "yes")], cookie: sam)
            #expect(deleted.status == .seeOther)
            #expect(try await client.send(.get, "/v1/secure-cards/order-9", key: fixture.adminA).status == .notFound)
            let page = try await Console.get(client, path, cookie: sam)
            #expect(page.text.contains(">deleted<") && page.text.contains(path + "/purge") && !page.text.contains(path + "/update"))

            for typed in ["", "order-8", "ORDER-9", token] {
                let refused = try await Console.post(client, path + "/purge", [("csrf", csrf), ("reference", typed)], cookie: sam)
                #expect(refused.status == .unprocessableContent, "\(typed)")
            }
            #expect(try await fixture.count("audit_events WHERE action = 'secure_card.purged'") == 0)
            let purged = try await Console.post(client, path + "/purge", [("csrf", csrf), ("reference", "order-9")], cookie: sam)
            #expect(purged.status == .seeOther)
            #expect(!(try await Console.get(client, path, cookie: sam).text.contains(path + "/purge")), "a purged card offers no second purge")
        }
        #expect(try await fixture.count("audit_events WHERE action = 'secure_card.deleted' AND actor = 'operator:sam'") == 1)
        #expect(try await fixture.count("audit_events WHERE action = 'secure_card.purged' AND actor = 'operator:sam'") == 1)
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:viewer'") == 2)
    }
}
