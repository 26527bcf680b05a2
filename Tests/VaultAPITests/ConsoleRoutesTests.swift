import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import Vault
import VaultApp
import VaultConsole
import VaultSQLite
@testable import VaultAppTestSupport

/// The operator console through the real router: sign-in with password and code, the session
/// cookie's flags, the Content-Security-Policy, CSRF and role refusals that change nothing, and the
/// card search showing only masked numbers, audited under the operator.
@Suite struct ConsoleRoutesTests {
    static let password = "blue kettle harbour"

    /// Creates an operator and returns its authenticator secret.
    static func enrol(_ fixture: APIFixture, _ name: String, role: OperatorRole) async throws -> [UInt8] {
        let (_, enrollment) = try await fixture.runtime.operators.create(name: name, role: role, merchantNames: [], password: password, actor: "test")
        return try Encoding.fromBase32(enrollment.secret)
    }

    static func form(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
    }

    static func post(_ client: any TestClientProtocol, _ uri: String, _ fields: [(String, String)], cookie: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let cookie { headers[.cookie] = "vault_console=\(cookie)" }
        return try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: form(fields))) { $0 }
    }

    static func get(_ client: any TestClientProtocol, _ uri: String, cookie: String?) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = "vault_console=\(cookie)" }
        return try await client.execute(uri: uri, method: .get, headers: headers) { $0 }
    }

    /// Signs in and returns the session cookie's token.
    static func signIn(_ client: any TestClientProtocol, _ name: String, secret: [UInt8]) async throws -> String {
        let code = TOTP.code(secret: secret, step: TOTP.step(at: Date()))
        let response = try await post(client, "/console/sign-in", [("name", name), ("password", password), ("code", code)])
        #expect(response.status == .seeOther)
        let cookie = try #require(response.headers[.setCookie])
        return try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
    }

    static func csrf(in page: String) throws -> String {
        let marker = #"name="csrf" value=""#
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix { $0 != "\"" })
    }

    /// The one-time key of a confirmation page's form.
    static func once(in page: String) throws -> String {
        let marker = #"name="once" value=""#
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix { $0 != "\"" })
    }

    @Test func aSignInNeedsThePasswordAndTheCodeAndItsCookieIsHttpOnlyStrictAndScopedToTheConsole() async throws {
        let fixture = try await APIFixture()
        let secret = try await Self.enrol(fixture, "ada", role: .support)
        try await fixture.live { client in
            let away = try await Self.get(client, "/console/cards", cookie: nil)
            #expect(away.status == .seeOther)
            #expect(away.headers[.location] == "/console/sign-in")

            let form = try await Self.get(client, "/console/sign-in", cookie: nil)
            #expect(form.status == .ok)
            for label in [">Name</label>", ">Password</label>", ">Authentication code</label>"] { #expect(form.text.contains(label)) }
            let policy = try #require(form.headers[.contentSecurityPolicy])
            #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'") && !policy.contains("unsafe-inline"))
            #expect(!form.text.contains("<script") && !form.text.contains("style="))

            let code = TOTP.code(secret: secret, step: TOTP.step(at: Date()))
            let wrong = code == "000000" ? "111111" : "000000"
            let refused = try await Self.post(client, "/console/sign-in", [("name", "ada"), ("password", Self.password), ("code", wrong)])
            #expect(refused.status == .unauthorized)
            #expect(refused.headers[.setCookie] == nil)
            let noCode = try await Self.post(client, "/console/sign-in", [("name", "ada"), ("password", Self.password)])
            #expect(noCode.status == .unauthorized)

            let accepted = try await Self.post(client, "/console/sign-in", [("name", "ada"), ("password", Self.password), ("code", code)])
            #expect(accepted.status == .seeOther)
            let cookie = try #require(accepted.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/console"))
            #expect(!cookie.contains("Secure"), "plain HTTP on loopback: a browser would not send a Secure cookie back")
            let token = try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
            #expect(try await fixture.count("console_sessions WHERE token_hash = '\(ConsoleSessionToken.hash(token))'") == 1)

            let again = try await Self.post(client, "/console/sign-in", [("name", "ada"), ("password", Self.password), ("code", code)])
            #expect(again.status == .unauthorized, "a code is accepted once")

            let cards = try await Self.get(client, "/console/cards", cookie: token)
            #expect(cards.status == .ok)
            for link in ["Cards", "Schedules", "Transactions", "Charge runs", "Statistics", "Audit", "Webhooks", "Settings"] {
                #expect(cards.text.contains(">\(link)</a>"), "\(link)")
            }
            #expect(cards.text.contains(">Sign out</button>"))
            #expect(cards.headers[.contentSecurityPolicy] == policy)
            let stylesheet = try await Self.get(client, "/console/assets/console.css", cookie: nil)
            #expect(stylesheet.status == .ok && stylesheet.headers[.contentType]?.hasPrefix("text/css") == true)
        }
        #expect(try await fixture.count("audit_events WHERE action = 'operator.signed_in' AND actor = 'operator:ada'") == 1)
    }

    @Test func aPostWithoutTheSessionsCSRFTokenIsRefusedAndChangesNothing() async throws {
        let fixture = try await APIFixture()
        let secret = try await Self.enrol(fixture, "ada", role: .admin)
        try await fixture.live { client in
            let token = try await Self.signIn(client, "ada", secret: secret)
            let page = try await Self.get(client, "/console/cards", cookie: token)
            let csrf = try Self.csrf(in: page.text)
            #expect(csrf == ConsoleSessionToken.csrfToken(for: token))

            for fields in [[(String, String)](), [("csrf", "")], [("csrf", String(repeating: "0", count: csrf.count))], [("csrf", ConsoleSessionToken.csrfToken(for: ConsoleSessionToken.make()))]] {
                let refused = try await Self.post(client, "/console/sign-out", fields, cookie: token)
                #expect(refused.status == .forbidden)
                #expect(try await fixture.count("console_sessions WHERE token_hash = '\(ConsoleSessionToken.hash(token))'") == 1)
            }
            // The right token sent from a page of another origin (or an opaque one) is refused too.
            for origin in ["https://evil.example", "null"] {
                let foreign = try await client.execute(
                    uri: "/console/sign-out", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded", .cookie: "vault_console=\(token)", .origin: origin],
                    body: ByteBuffer(string: Self.form([("csrf", csrf)]))) { $0 }
                #expect(foreign.status == .forbidden)
            }
            #expect(try await fixture.count("console_sessions") == 1)
            let signedOut = try await Self.post(client, "/console/sign-out", [("csrf", csrf)], cookie: token)
            #expect(signedOut.status == .seeOther)
            #expect(signedOut.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await fixture.count("console_sessions") == 0)
            #expect(try await Self.get(client, "/console/cards", cookie: token).status == .seeOther)
        }
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:ada'") == 6)
        #expect(try await fixture.count("audit_events WHERE action = 'operator.signed_out' AND actor = 'operator:ada'") == 1)
    }

    @Test func aFormARoleCannotUseIsNotShownAndAForgedPostOfItIsRefused() async throws {
        let fixture = try await APIFixture()
        let adminSecret = try await Self.enrol(fixture, "root-ops", role: .admin)
        let readonlySecret = try await Self.enrol(fixture, "viewer", role: .readonly)
        _ = try await Self.enrol(fixture, "target", role: .support)
        try await fixture.live { client in
            let viewer = try await Self.signIn(client, "viewer", secret: readonlySecret)
            let page = try await Self.get(client, "/console/settings", cookie: viewer)
            #expect(page.status == .ok)
            #expect(!page.text.contains("/console/settings/operators/disable"))
            let forged = try await Self.post(
                client, "/console/settings/operators/disable", [("csrf", try Self.csrf(in: page.text)), ("name", "target")], cookie: viewer)
            #expect(forged.status == .forbidden)
            #expect(try await fixture.runtime.operators.list().first { $0.name == "target" }?.status == .active)

            let admin = try await Self.signIn(client, "root-ops", secret: adminSecret)
            let adminPage = try await Self.get(client, "/console/settings", cookie: admin)
            #expect(adminPage.text.contains("/console/settings/operators/disable"))
            let done = try await Self.post(
                client, "/console/settings/operators/disable", [("csrf", try Self.csrf(in: adminPage.text)), ("name", "target")], cookie: admin)
            #expect(done.status == .seeOther)
            #expect(try await fixture.runtime.operators.list().first { $0.name == "target" }?.status == .disabled)
        }
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:viewer'") == 1)
        #expect(try await fixture.count("audit_events WHERE action = 'operator.disabled' AND actor = 'operator:root-ops'") == 1)
    }

    @Test func aCardIsFoundByItsLastFourShownMaskedAndTheSearchIsAuditedUnderTheOperator() async throws {
        let fixture = try await APIFixture()
        let secret = try await Self.enrol(fixture, "ada", role: .readonly)
        try await fixture.live { client in
            let registered = try await client.send(.post, "/v1/secure-cards", key: fixture.adminA, json: keyedCard("order-77", number: "4111111111111111"))
            #expect(registered.status == .created)
            let token = try await Self.signIn(client, "ada", secret: secret)
            let found = try await Self.get(client, "/console/cards?q=1111", cookie: token)
            #expect(found.status == .ok)
            #expect(found.text.contains("order-77"))
            #expect(found.text.contains("411111******1111"))
            #expect(!found.text.contains("4111111111111111"))
            let reference = try #require(registered.json["secureCardReference"] as? String)
            let detailPath = "/console/cards/\(fixture.merchantA.id)/\(reference)"
            #expect(found.text.contains(detailPath))
            let detail = try await Self.get(client, detailPath, cookie: token)
            #expect(detail.status == .ok)
            #expect(detail.text.contains("411111******1111") && detail.text.contains("12/2030") && detail.text.contains("Ada Lovelace"))
            #expect(!detail.text.contains("4111111111111111"))
            #expect(try await Self.get(client, "/console/cards/\(fixture.merchantA.id)/sc_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", cookie: token).status == .notFound)
            let none = try await Self.get(client, "/console/cards?q=9999", cookie: token)
            #expect(none.text.contains("No card matches."))
            let whole = try await Self.get(client, "/console/cards?q=4111111111111111", cookie: token)
            #expect(whole.status == .badRequest)
            #expect(!whole.text.contains("4111111111111111"))
        }
        // Reads are audited just after they answer: SQLite writes them before the next write;
        // PostgreSQL in a transaction of its own, awaited here until they are there.
        if let sqlite = fixture.runtime.store as? SQLiteStore { try await sqlite.database.write { _ in } }
        let searched = "audit_events WHERE action = 'secure_card.searched' AND actor = 'operator:ada'"
        for _ in 0..<200 where try await fixture.count(searched) < 4 { try await Task.sleep(for: .milliseconds(50)) }
        // Two searches in each of the two merchants; the whole number was refused before any search.
        #expect(try await fixture.count(searched) == 4)
    }

    @Test func aSupportOperatorRefundsPartOfASaleAfterAConfirmationStatingAmountAndCurrencyAndAReadOnlyOneCannot() async throws {
        let fixture = try await APIFixture()
        let supportSecret = try await Self.enrol(fixture, "sam", role: .support)
        let viewerSecret = try await Self.enrol(fixture, "viewer", role: .readonly)
        try await fixture.live { client in
            let sale = try await client.send(.post, "/v1/transactions", key: fixture.adminA, json: TransactionRoutesTests.rawSale(amount: 24_680_000))
            #expect(sale.status == .created)
            let saleID = try #require(sale.json["id"] as? String)
            let path = "/console/transactions/\(fixture.merchantA.id)/\(saleID)"

            let viewer = try await Self.signIn(client, "viewer", secret: viewerSecret)
            let seen = try await Self.get(client, path, cookie: viewer)
            #expect(seen.status == .ok)
            #expect(seen.text.contains("$246,800.00"))
            #expect(seen.text.contains("UTC"), "the merchant's zone is named")
            #expect(!seen.text.contains("/refund"), "no refund form for a read-only operator")
            let forged = try await Self.post(client, path + "/refund", [("csrf", try Self.csrf(in: seen.text)), ("amount", "10"), ("confirm", "yes")], cookie: viewer)
            #expect(forged.status == .forbidden)
            #expect(try await fixture.count("transactions WHERE type = 'refund'") == 0)

            let sam = try await Self.signIn(client, "sam", secret: supportSecret)
            let detail = try await Self.get(client, path, cookie: sam)
            #expect(detail.text.contains(path + "/refund"))
            let csrf = try Self.csrf(in: detail.text)
            let bad = try await Self.post(client, path + "/refund", [("csrf", csrf), ("amount", "12.345")], cookie: sam)
            #expect(bad.status == .unprocessableContent)
            let confirm = try await Self.post(client, path + "/refund", [("csrf", csrf), ("amount", "1234.50")], cookie: sam)
            #expect(confirm.status == .ok)
            #expect(confirm.text.contains("$1,234.50") && confirm.text.contains("(USD)"))
            #expect(try await fixture.count("transactions WHERE type = 'refund'") == 0, "nothing is refunded before the confirmation")
            let unkeyed = try await Self.post(client, path + "/refund", [("csrf", csrf), ("amount", "1234.50"), ("confirm", "yes")], cookie: sam)
            #expect(unkeyed.status == .unprocessableContent, "a confirmation without its one-time key sends nothing")
            #expect(try await fixture.count("transactions WHERE type = 'refund'") == 0)
            let once = try Self.once(in: confirm.text)
            let done = try await Self.post(
                client, path + "/refund", [("csrf", csrf), ("amount", "1234.50"), ("confirm", "yes"), ("once", once)], cookie: sam)
            #expect(done.status == .seeOther)
            #expect(try await fixture.count("transactions WHERE type = 'refund' AND amount = 123450") == 1)
            let twice = try await Self.post(
                client, path + "/refund", [("csrf", csrf), ("amount", "1234.50"), ("confirm", "yes"), ("once", once)], cookie: sam)
            #expect(twice.status == .seeOther && twice.headers[.location] == done.headers[.location], "a double submit shows the first refund")
            #expect(try await fixture.count("transactions WHERE type = 'refund'") == 1, "a double submit refunds once")

            let audit = try await Self.get(client, "/console/audit?actor=operator%3Asam", cookie: sam)
            #expect(audit.status == .ok)
            #expect(audit.text.contains("transaction.refund") || audit.text.contains("refund"))
            #expect(audit.text.contains("operator:sam"))
            let search = try await Self.get(client, "/console/transactions?type=refund", cookie: sam)
            #expect(search.text.contains("$1,234.50"))
        }
        #expect(try await fixture.count("audit_events WHERE actor = 'operator:sam' AND object_type = 'transaction'") >= 1)
        #expect(try await fixture.count("audit_events WHERE action = 'console.request_refused' AND actor = 'operator:viewer'") == 1)
    }

    @Test(arguments: [(Int64(5000), "JPY", "¥5,000"), (Int64(24_680_000), "USD", "$246,800.00"), (Int64(1250), "EUR", "€12.50")])
    func anAmountIsWrittenInItsCurrencysOwnFormat(minor: Int64, code: String, written: String) throws {
        #expect(ConsoleFormat.amount(minor, try Currency(code: code)) == written)
    }
}
