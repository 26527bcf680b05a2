import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
import VaultApp
@testable import VaultAppTestSupport

/// Operators in Settings: an admin creates and resets operators through `OperatorService` (what
/// `vault operator create|reset` calls); the authenticator secret is shown on the result page only
/// and signs the new operator in; a password is typed twice, held to the strength floor and never
/// written back or audited; bad input is a 422 that changes nothing; an admin cannot reset or
/// disable themself, nor manage an operator wider than their own merchants; support and read-only
/// operators are shown none of these forms and their forged posts are refused.
@Suite struct ConsoleOperatorsSettingsTests {
    typealias Console = ConsoleRoutesTests

    static let newPassword = "quiet lantern orchard"

    static func field(_ id: String, in page: String) throws -> String {
        let marker = "id=\"\(id)\" class=\"mono\" value=\""
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix { $0 != "\"" })
    }

    static func signIn(_ client: any TestClientProtocol, _ name: String, password: String, secret: String) async throws -> TestResponse {
        let code = TOTP.code(secret: try Encoding.fromBase32(secret), step: TOTP.step(at: Date()))
        return try await Console.post(client, "/console/sign-in", [("name", name), ("password", password), ("code", code)])
    }

    @Test func anAdminCreatesAnOperatorWhoSignsInWithTheSecretShownOnceAndBadInputChangesNothing() async throws {
        let fixture = try await APIFixture()
        let adminSecret = try await Console.enrol(fixture, "root-ops", role: .admin)
        let supportSecret = try await Console.enrol(fixture, "sam", role: .support)
        let viewerSecret = try await Console.enrol(fixture, "rita", role: .readonly)
        try await fixture.live { client in
            let operators = { try await fixture.count("operators") }
            let before = try await operators()
            let create = { (cookie: String, csrf: String, fields: [(String, String)]) in
                try await Console.post(client, "/console/settings/operators/create", [("csrf", csrf)] + fields, cookie: cookie)
            }
            let good: [(String, String)] = [
                ("name", "nina"), ("role", "support"), ("scope", "some"), ("merchant-\(fixture.merchantA.name)", "yes"),
                ("password", Self.newPassword), ("passwordAgain", Self.newPassword),
            ]
            for (name, secret) in [("sam", supportSecret), ("rita", viewerSecret)] {
                let cookie = try await Console.signIn(client, name, secret: secret)
                let page = try await Console.get(client, "/console/settings", cookie: cookie)
                #expect(!page.text.contains("/console/settings/operators/create") && !page.text.contains("/console/settings/operators/reset"))
                let csrf = try Console.csrf(in: page.text)
                #expect(try await create(cookie, csrf, good).status == .forbidden, "\(name)'s forged create")
                let forgedReset = try await Console.post(
                    client, "/console/settings/operators/reset",
                    [("csrf", csrf), ("name", "root-ops"), ("password", Self.newPassword), ("passwordAgain", Self.newPassword)], cookie: cookie)
                #expect(forgedReset.status == .forbidden, "\(name)'s forged reset")
            }
            #expect(try await operators() == before)

            let admin = try await Console.signIn(client, "root-ops", secret: adminSecret)
            let page = try await Console.get(client, "/console/settings", cookie: admin)
            #expect(page.text.contains("action=\"/console/settings/operators/create\"") && page.text.contains("<label for=\"new-password-again\">"))
            #expect(page.text.contains("You cannot reset or disable\nyour own account here"))
            let csrf = try Console.csrf(in: page.text)
            let typed = Dictionary(uniqueKeysWithValues: good)
            let bad: [(String, [(String, String)], String)] = [
                ("weak", good.map { ["password", "passwordAgain"].contains($0.0) ? ($0.0, "password1234") : $0 }, "not created: the operator password is a common one"),
                ("short", good.map { ["password", "passwordAgain"].contains($0.0) ? ($0.0, "short pass") : $0 }, "not created: an operator password has at least 12 characters"),
                ("mismatched", good.map { $0.0 == "passwordAgain" ? ($0.0, Self.newPassword + "!") : $0 }, "not the same"),
                ("bad name", good.map { $0.0 == "name" ? ($0.0, "nina lee!") : $0 }, "not created: an operator name is 1-64 letters"),
                ("taken name", good.map { $0.0 == "name" ? ($0.0, "sam") : $0 }, "named sam exists already"),
                ("unknown merchant", good + [("merchant-ghost", "yes")], "not created: no merchant is named ghost"),
                ("no merchant", good.filter { !$0.0.hasPrefix("merchant-") }, "Tick at least one merchant"),
                ("no role", good.map { $0.0 == "role" ? ($0.0, "owner") : $0 }, "Choose the operator&#39;s role"),
            ]
            for (what, fields, message) in bad {
                let refused = try await create(admin, csrf, fields)
                #expect(refused.status == .unprocessableContent, "\(what)")
                #expect(refused.text.contains(message), "\(what)")
                #expect(!refused.text.contains(typed["password"]!) && !refused.text.contains("password1234"), "\(what): the password is never written back")
            }
            #expect(try await operators() == before, "bad input creates nobody")

            let created = try await create(admin, csrf, good)
            #expect(created.status == .ok)
            #expect(created.headers[.cacheControl] == "no-store")
            #expect(!created.text.contains(Self.newPassword))
            let secret = try Self.field("totp-secret", in: created.text)
            let uri = try Self.field("otpauth-uri", in: created.text)
            #expect(secret.count == 32 && uri.hasPrefix("otpauth://totp/") && uri.contains("secret=\(secret)"))
            #expect(try await operators() == before + 1)

            let listed = try await Console.get(client, "/console/settings", cookie: admin)
            #expect(listed.text.contains("<td>nina</td><td>support</td><td>\(fixture.merchantA.name)</td><td>active</td><td>never</td>"))
            #expect(!listed.text.contains(secret), "the secret is never shown again")

            let nina = try await Self.signIn(client, "nina", password: Self.newPassword, secret: secret)
            #expect(nina.status == .seeOther && nina.headers[.location] == "/console/cards")
            let signedIn = try await Console.get(client, "/console/settings", cookie: admin)
            #expect(!signedIn.text.contains("<td>\(fixture.merchantA.name)</td><td>active</td><td>never</td>"), "the last sign-in is listed")
            #expect(signedIn.text.contains("<td>\(fixture.merchantA.name)</td><td>active</td><td>20"))
        }
        #expect(try await fixture.count("audit_events WHERE action = 'operator.created' AND actor = 'operator:root-ops'") == 1)
        #expect(try await fixture.count("audit_events WHERE details LIKE '%lantern%' OR details LIKE '%password1234%'") == 0)
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor IN ('operator:sam', 'operator:rita')") == 4)
    }

    @Test func anAdminResetsAnotherOperatorWhoSignsInWithTheNewSecretButCannotResetOrDisableThemself() async throws {
        let fixture = try await APIFixture()
        let adminSecret = try await Console.enrol(fixture, "root-ops", role: .admin)
        let supportSecret = try await Console.enrol(fixture, "sam", role: .support)
        try await fixture.live { client in
            let sam = try await Console.signIn(client, "sam", secret: supportSecret)
            let admin = try await Console.signIn(client, "root-ops", secret: adminSecret)
            let page = try await Console.get(client, "/console/settings", cookie: admin)
            #expect(page.text.contains("<option value=\"sam\">") && !page.text.contains("<option value=\"root-ops\">"), "oneself is not offered")
            #expect(!page.text.contains("aria-label=\"Disable root-ops\""))
            let csrf = try Console.csrf(in: page.text)
            let reset = { (name: String, password: String, again: String) in
                try await Console.post(
                    client, "/console/settings/operators/reset", [("csrf", csrf), ("name", name), ("password", password), ("passwordAgain", again)],
                    cookie: admin)
            }
            let resets = { try await fixture.count("audit_events WHERE action = 'operator.reset'") }
            for (what, name, password, again, message) in [
                ("oneself", "root-ops", Self.newPassword, Self.newPassword, "cannot reset your own account"),
                ("unknown", "nobody", Self.newPassword, Self.newPassword, "No operator is named nobody"),
                ("mismatched", "sam", Self.newPassword, "another password", "not the same"),
                ("weak", "sam", "password1234", "password1234", "common"),
            ] {
                let refused = try await reset(name, password, again)
                #expect(refused.status == .unprocessableContent, "\(what)")
                #expect(refused.text.contains(message) && !refused.text.contains(Self.newPassword), "\(what)")
            }
            let disableSelf = try await Console.post(client, "/console/settings/operators/disable", [("csrf", csrf), ("name", "root-ops")], cookie: admin)
            #expect(disableSelf.status == .unprocessableContent)
            #expect(try await resets() == 0)
            #expect(try await Console.get(client, "/console/cards", cookie: sam).status == .ok, "nothing changed for sam")
            #expect(try await Console.get(client, "/console/cards", cookie: admin).status == .ok, "nor for the admin")

            let done = try await reset("sam", Self.newPassword, Self.newPassword)
            #expect(done.status == .ok && done.headers[.cacheControl] == "no-store")
            #expect(done.text.contains("Operator sam (support) was reset") && !done.text.contains(Self.newPassword))
            let secret = try Self.field("totp-secret", in: done.text)
            #expect(try await Console.get(client, "/console/cards", cookie: sam).status == .seeOther, "the reset ends sam's sessions")
            let old = try await Self.signIn(client, "sam", password: Console.password, secret: Encoding.base32(supportSecret).uppercased())
            #expect(old.status == .unauthorized, "the old password and secret no longer sign in")
            let signedIn = try await Self.signIn(client, "sam", password: Self.newPassword, secret: secret)
            #expect(signedIn.status == .seeOther)
        }
        #expect(try await fixture.count("audit_events WHERE action = 'operator.reset' AND actor = 'operator:root-ops'") == 1)
        #expect(try await fixture.count("audit_events WHERE details LIKE '%lantern%'") == 0)
    }

    @Test func anAdminOfSomeMerchantsManagesOnlyOperatorsWithinThem() async throws {
        let fixture = try await APIFixture()
        let limitedSecret = try await fixture.runtime.operators.create(
            name: "lim", role: .admin, merchantNames: [fixture.merchantA.name], password: Console.password, actor: "test"
        ).enrollment.secret
        _ = try await Console.enrol(fixture, "root-ops", role: .admin)
        try await fixture.live { client in
            let signIn = try await Self.signIn(client, "lim", password: Console.password, secret: limitedSecret)
            let cookie = try #require(signIn.headers[.setCookie]?.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
            let page = try await Console.get(client, "/console/settings", cookie: cookie)
            #expect(!page.text.contains("id=\"new-scope-all\"") && !page.text.contains("<option value=\"root-ops\">"))
            #expect(!page.text.contains("merchant-\(fixture.merchantB.name)"))
            let csrf = try Console.csrf(in: page.text)
            let passwords = [("password", Self.newPassword), ("passwordAgain", Self.newPassword)]
            let every = try await Console.post(
                client, "/console/settings/operators/create", [("csrf", csrf), ("name", "wide"), ("role", "support"), ("scope", "all")] + passwords, cookie: cookie)
            #expect(every.status == .forbidden)
            let other = try await Console.post(
                client, "/console/settings/operators/create",
                [("csrf", csrf), ("name", "wide"), ("role", "support"), ("scope", "some"), ("merchant-\(fixture.merchantB.name)", "yes")] + passwords, cookie: cookie)
            #expect(other.status == .unprocessableContent)
            let wider = try await Console.post(client, "/console/settings/operators/reset", [("csrf", csrf), ("name", "root-ops")] + passwords, cookie: cookie)
            #expect(wider.status == .forbidden)
            let disable = try await Console.post(client, "/console/settings/operators/disable", [("csrf", csrf), ("name", "root-ops")], cookie: cookie)
            #expect(disable.status == .forbidden)
            let own = try await Console.post(
                client, "/console/settings/operators/create",
                [("csrf", csrf), ("name", "narrow"), ("role", "support"), ("scope", "some"), ("merchant-\(fixture.merchantA.name)", "yes")] + passwords, cookie: cookie)
            #expect(own.status == .ok)
        }
        #expect(try await fixture.count("operators WHERE name = 'wide'") == 0)
        #expect(try await fixture.count("operators WHERE name = 'narrow'") == 1)
        #expect(try await fixture.count("audit_events WHERE action IN ('operator.reset', 'operator.disabled') AND actor = 'operator:lim'") == 0)
    }
}
