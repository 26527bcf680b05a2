import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport

/// Settings for an admin: a merchant's custom field definitions added and removed through the
/// service `PUT /v1/custom-fields` uses, and its API keys issued (the secret shown on the result
/// page only) and revoked behind a confirmation; a support operator is shown none of these forms and
/// refused a forged post; bad input a 4xx that changes nothing.
@Suite struct ConsoleSettingsScreenTests {
    typealias Console = ConsoleRoutesTests

    @Test func anAdminAddsAndRemovesCustomFieldsAndASupportOperatorsForgedPostIsRefused() async throws {
        let fixture = try await APIFixture()
        let adminSecret = try await Console.enrol(fixture, "root-ops", role: .admin)
        let supportSecret = try await Console.enrol(fixture, "sam", role: .support)
        try await fixture.live { client in
            let definitions = { try await client.send(.get, "/v1/custom-fields", key: fixture.adminA).text }
            let sam = try await Console.signIn(client, "sam", secret: supportSecret)
            let samPage = try await Console.get(client, "/console/settings", cookie: sam)
            #expect(!samPage.text.contains("/console/settings/custom-fields/add") && !samPage.text.contains("/console/settings/api-keys/issue"))
            let forged = try await Console.post(
                client, "/console/settings/custom-fields/add",
                [("csrf", try Console.csrf(in: samPage.text)), ("merchant", fixture.merchantA.id), ("name", "loyalty"), ("maxLength", "20")], cookie: sam)
            #expect(forged.status == .forbidden)
            #expect(!(try await definitions()).contains("loyalty"))

            let admin = try await Console.signIn(client, "root-ops", secret: adminSecret)
            let page = try await Console.get(client, "/console/settings?merchant=\(fixture.merchantA.id)", cookie: admin)
            #expect(page.text.contains("Custom fields of \(fixture.merchantA.name)") && page.text.contains("/console/settings/custom-fields/add"))
            let csrf = try Console.csrf(in: page.text)
            let add = { (name: String, maxLength: String) in
                try await Console.post(
                    client, "/console/settings/custom-fields/add",
                    [("csrf", csrf), ("merchant", fixture.merchantA.id), ("name", name), ("maxLength", maxLength)], cookie: admin)
            }
            #expect(try await add("loyalty", "20").status == .seeOther)
            #expect(try await definitions().contains("loyalty"))
            for (name, maxLength) in [("bad name!", "20"), ("loyalty", "20"), ("points", "0"), ("points", "many")] {
                let refused = try await add(name, maxLength)
                #expect(refused.status == .unprocessableContent, "\(name) \(maxLength)")
                #expect(refused.text.contains("notice error"))
            }
            #expect(!(try await definitions()).contains("points"))
            let shown = try await Console.get(client, "/console/settings?merchant=\(fixture.merchantA.id)", cookie: admin)
            #expect(shown.text.contains("Remove loyalty"))
            let removed = try await Console.post(
                client, "/console/settings/custom-fields/remove", [("csrf", csrf), ("merchant", fixture.merchantA.id), ("name", "loyalty")], cookie: admin)
            #expect(removed.status == .seeOther)
            #expect(!(try await definitions()).contains("loyalty"))
        }
        #expect(try await fixture.count("audit_events WHERE action = 'custom_fields.replaced' AND actor = 'operator:root-ops'") == 2)
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:sam'") == 1)
    }

    @Test func anIssuedKeysSecretIsShownOnceAndAuthenticatesUntilItIsRevokedBehindAConfirmation() async throws {
        let fixture = try await APIFixture()
        let adminSecret = try await Console.enrol(fixture, "root-ops", role: .admin)
        let supportSecret = try await Console.enrol(fixture, "sam", role: .support)
        try await fixture.live { client in
            let keys = { try await fixture.count("api_keys") }
            let before = try await keys()
            let sam = try await Console.signIn(client, "sam", secret: supportSecret)
            let samCSRF = try Console.csrf(in: try await Console.get(client, "/console/settings", cookie: sam).text)
            let forged = try await Console.post(
                client, "/console/settings/api-keys/issue", [("csrf", samCSRF), ("merchant", fixture.merchantA.id), ("label", "x"), ("role", "admin")],
                cookie: sam)
            #expect(forged.status == .forbidden)
            #expect(try await keys() == before)

            let admin = try await Console.signIn(client, "root-ops", secret: adminSecret)
            let csrf = try Console.csrf(in: try await Console.get(client, "/console/settings", cookie: admin).text)
            let issue = { (label: String, role: String) in
                try await Console.post(
                    client, "/console/settings/api-keys/issue", [("csrf", csrf), ("merchant", fixture.merchantA.id), ("label", label), ("role", role)],
                    cookie: admin)
            }
            for (label, role) in [("till 3", "owner"), ("4111111111111111", "readonly"), ("", "readonly")] {
                let refused = try await issue(label, role)
                #expect(refused.status == .unprocessableContent)
                #expect(!refused.text.contains("4111111111111111"))
            }
            #expect(try await keys() == before)
            let issued = try await issue("till 3", "readonly")
            #expect(issued.status == .ok)
            let marker = #"id="secret" class="mono" value=""#
            let start = try #require(issued.text.range(of: marker)).upperBound
            let secret = String(issued.text[start...].prefix { $0 != "\"" })
            #expect(secret.hasPrefix("vk_"))
            #expect(try await client.send(.get, "/v1/transactions", key: secret).status == .ok)

            let listed = try await Console.get(client, "/console/settings?merchant=\(fixture.merchantA.id)", cookie: admin)
            #expect(listed.text.contains("till 3") && listed.text.contains(">never<"))
            #expect(!listed.text.contains(secret), "the secret is never shown again")
            let keyID = "key_" + String(secret.dropFirst(3).prefix(16))
            #expect(listed.text.contains(keyID))
            let revoke = [("csrf", csrf), ("merchant", fixture.merchantA.id), ("key", keyID)]
            let confirm = try await Console.post(client, "/console/settings/api-keys/revoke", revoke, cookie: admin)
            #expect(confirm.status == .ok && confirm.text.contains("Revoke key"))
            #expect(try await client.send(.get, "/v1/transactions", key: secret).status == .ok, "nothing is revoked before the confirmation")
            let revoked = try await Console.post(client, "/console/settings/api-keys/revoke", revoke + [("confirm", "yes")], cookie: admin)
            #expect(revoked.status == .seeOther)
            #expect(try await client.send(.get, "/v1/transactions", key: secret).status == .unauthorized)
            let otherMerchant = try await Console.post(
                client, "/console/settings/api-keys/revoke", [("csrf", csrf), ("merchant", fixture.merchantB.id), ("key", keyID), ("confirm", "yes")],
                cookie: admin)
            #expect(otherMerchant.status == .unprocessableContent, "a key is revoked only under its own merchant")
        }
        #expect(try await fixture.count("audit_events WHERE action = 'api_key.created' AND actor = 'operator:root-ops'") == 1)
        #expect(try await fixture.count("audit_events WHERE action = 'api_key.revoked' AND actor = 'operator:root-ops'") == 1)
    }
}
