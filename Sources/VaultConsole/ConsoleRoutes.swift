public import Hummingbird
import Foundation
import HTTPTypes
import NIOCore
import Vault

/// The operator console under `/console`: server-rendered pages over the same services as the API.
///
/// Every page but the sign-in form and the stylesheet needs a live session (else a 303 to the sign-in
/// form). Every form post is checked, in order: its media type and size, its `Origin` (when the
/// browser sends one) against the request's host, the session's CSRF token (constant time), then the
/// operator's role; a refusal changes nothing. A form the role cannot use is not shown either.
public struct ConsoleRoutes: Sendable {
    /// The session cookie: `HttpOnly`, `SameSite=Strict`, `Path=/console`, `Secure` unless plain
    /// HTTP on loopback; it holds only the session's random token.
    public static let cookieName = "vault_console"

    let services: ConsoleServices

    public init(services: ConsoleServices) {
        self.services = services
    }

    /// Adds the console's routes under `/console`.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("console") { _, _ in ConsoleResponses.redirect("/console/cards") }
        let console = router.group("console")
        console.get(RouterPath(ConsoleStylesheet.path)) { _, _ in ConsoleResponses.stylesheet() }
        console.get("sign-in") { request, _ in
            if try await signedIn(request) != nil { return ConsoleResponses.redirect("/console/cards") }
            return ConsoleResponses.html(ConsolePage.signIn(message: nil))
        }
        console.post("sign-in") { request, _ in try await signIn(request) }
        console.post("sign-out") { request, _ in
            try await withForm(request, permission: .view) { signed, _ in
                try await services.operators.signOut(token: signed.token, account: signed.account)
                var response = ConsoleResponses.redirect("/console/sign-in")
                response.setCookie(cookie(value: "", maxAge: 0))
                return response
            }
        }
        console.get("cards") { request, _ in
            try await withSession(request) { signed in
                try await CardsScreen(services: services).page(query: Self.query(request), signed: signed)
            }
        }
        console.get("cards/:merchant/:token") { request, context in
            try await withSession(request) { signed in
                try await CardsScreen(services: services).detail(
                    merchantID: context.parameters.get("merchant") ?? "", reference: context.parameters.get("token") ?? "", signed: signed,
                    query: Self.query(request))
            }
        }
        console.post("cards/:merchant/:token/:action") { request, context in
            let action = ConsoleAction.cardActions.first { $0.rawValue == context.parameters.get("action") }
            return try await withForm(request, permission: action?.permission ?? .support) { signed, form in
                let (merchantID, reference) = (context.parameters.get("merchant") ?? "", context.parameters.get("token") ?? "")
                let actions = CardActions(services: services)
                switch action {
                case .updateCard: return try await actions.update(merchantID: merchantID, reference: reference, form: form, signed: signed)
                case .deleteCard: return try await actions.delete(merchantID: merchantID, reference: reference, form: form, signed: signed)
                case .purgeCard: return try await actions.purge(merchantID: merchantID, reference: reference, form: form, signed: signed)
                default: return CardsScreen(services: services).notFound(signed)
                }
            }
        }
        console.get("transactions") { request, _ in
            try await withSession(request) { signed in try await TransactionsScreen(services: services).list(query: Self.query(request), signed: signed) }
        }
        console.get("transactions/:merchant/:id") { request, context in
            try await withSession(request) { signed in
                try await TransactionsScreen(services: services).detail(
                    merchantID: context.parameters.get("merchant") ?? "", id: context.parameters.get("id") ?? "", signed: signed)
            }
        }
        for action in TransactionsScreen.FollowUp.allCases {
            console.post(RouterPath("transactions/:merchant/:id/\(action.rawValue)")) { request, context in
                try await withForm(request, permission: .support) { signed, form in
                    try await TransactionsScreen(services: services).followUp(
                        action, merchantID: context.parameters.get("merchant") ?? "", id: context.parameters.get("id") ?? "", form: form, signed: signed)
                }
            }
        }
        console.get("audit") { request, _ in
            try await withSession(request) { signed in try await AuditScreen(services: services).page(query: Self.query(request), signed: signed) }
        }
        console.post("audit/verify") { request, _ in
            try await withForm(request, permission: .view) { signed, _ in try await AuditScreen(services: services).verify(signed: signed) }
        }
        console.get("charge-runs") { request, _ in
            try await withSession(request) { signed in try await ChargeRunsScreen(services: services).list(query: Self.query(request), signed: signed) }
        }
        console.get("charge-runs/:merchant/:id") { request, context in
            try await withSession(request) { signed in
                try await ChargeRunsScreen(services: services).detail(
                    merchantID: context.parameters.get("merchant") ?? "", id: context.parameters.get("id") ?? "", signed: signed)
            }
        }
        console.post("charge-runs/start") { request, _ in
            try await withForm(request, permission: .administer) { signed, form in
                try await ChargeRunsScreen(services: services).start(form: form, signed: signed)
            }
        }
        console.get("statistics") { request, _ in
            try await withSession(request) { signed in try await StatisticsScreen(services: services).page(query: Self.query(request), signed: signed) }
        }
        console.get("webhooks") { request, _ in
            try await withSession(request) { signed in try await WebhooksScreen(services: services).page(query: Self.query(request), signed: signed) }
        }
        console.post("webhooks/:merchant/:id/resend") { request, context in
            try await withForm(request, permission: .support) { signed, _ in
                try await WebhooksScreen(services: services).resend(
                    merchantID: context.parameters.get("merchant") ?? "", id: context.parameters.get("id") ?? "", signed: signed)
            }
        }
        addScheduleRoutes(to: console)
        for screen in ConsolePage.screens where !["cards", "schedules", "review-queue", "transactions", "charge-runs", "statistics", "audit", "webhooks", "settings"].contains(screen.path) {
            console.get(RouterPath(screen.path)) { request, _ in
                try await withSession(request) { signed in
                    ConsoleResponses.html(
                        ConsolePage.shell(current: screen.path, title: screen.name, account: signed.account, csrf: signed.csrf, content: ConsolePage.notBuilt(screen.name)))
                }
            }
        }
        console.get("settings") { request, _ in
            try await withSession(request) { signed in
                try await SettingsScreen(services: services).page(signed: signed, merchantID: request.uri.queryParameters["merchant"].map(String.init))
            }
        }
        for path in ["custom-fields/add", "custom-fields/remove", "api-keys/issue", "api-keys/revoke"] {
            console.post(RouterPath("settings/\(path)")) { request, _ in
                try await withForm(request, permission: .administer) { signed, form in
                    try await MerchantSettingsSection(services: services).post(path, form: form, signed: signed)
                }
            }
        }
        console.post("review-queue/lookup") { request, _ in
            try await withForm(request, permission: .support) { signed, form in
                try await ReviewQueueScreen(services: services).lookup(form: form, signed: signed)
            }
        }
        for action in ["create", "reset", "disable"] {
            console.post(RouterPath("settings/operators/\(action)")) { request, _ in
                try await withForm(request, permission: .administer) { signed, form in
                    try await OperatorsSection(services: services).post(action, form: form, signed: signed)
                }
            }
        }
    }

    // MARK: - Sessions

    /// The live session of the request's cookie, or nil.
    func signedIn(_ request: Request) async throws -> ConsoleSignedIn? {
        guard let token = request.cookies[Self.cookieName]?.value, !token.isEmpty,
              let (account, _) = try await services.operators.session(token: token)
        else { return nil }
        return ConsoleSignedIn(account: account, token: token)
    }

    /// `body` for a signed-in operator; the sign-in form (303) otherwise.
    func withSession(_ request: Request, _ body: (ConsoleSignedIn) async throws -> Response) async throws -> Response {
        guard let signed = try await signedIn(request) else {
            var response = ConsoleResponses.redirect("/console/sign-in")
            if request.cookies[Self.cookieName] != nil { response.setCookie(cookie(value: "", maxAge: 0)) }
            return response
        }
        return try await body(signed)
    }

    /// `body` for a form post that passed every check described on the type; the refusal otherwise.
    func withForm(
        _ request: Request, permission: OperatorRole.Permission, _ body: (ConsoleSignedIn, ConsoleForm) async throws -> Response
    ) async throws -> Response {
        guard let signed = try await signedIn(request) else { return ConsoleResponses.redirect("/console/sign-in") }
        guard let form = try await Self.form(request) else { return refusal(.badRequest, "The form could not be read.", signed) }
        guard Self.sameOrigin(request), signed.carriesCSRFToken(form) else {
            try await services.operators.recordRefusal(account: signed.account, path: request.uri.path, reason: "csrf")
            return refusal(.forbidden, "The form was not sent from this console session. Reload the page and try again.", signed)
        }
        guard signed.account.role.allows(permission) else {
            try await services.operators.recordRefusal(account: signed.account, path: request.uri.path, reason: "role")
            return refusal(.forbidden, "Your role (\(signed.account.role.rawValue)) cannot do this.", signed)
        }
        return try await body(signed, form)
    }

    func refusal(_ status: HTTPResponse.Status, _ message: String, _ signed: ConsoleSignedIn) -> Response {
        ConsoleResponses.html(
            ConsolePage.shell(
                current: "", title: "Not done", account: signed.account, csrf: signed.csrf,
                content: "<p class=\"notice error\" role=\"alert\">\(message)</p>"),
            status: status)
    }

    // MARK: - Sign-in

    func signIn(_ request: Request) async throws -> Response {
        guard let form = try await Self.form(request), Self.sameOrigin(request) else {
            return ConsoleResponses.html(ConsolePage.signIn(message: "The form could not be read."), status: .badRequest)
        }
        let name = form["name"] ?? ""
        do {
            let signed = try await services.operators.signIn(name: name, password: form["password"] ?? "", code: form["code"] ?? "")
            var response = ConsoleResponses.redirect("/console/cards")
            response.setCookie(cookie(value: signed.token, maxAge: nil))
            return response
        } catch OperatorError.signInRefused {
            let shown = MerchantName.isValid(name) ? name : ""
            return ConsoleResponses.html(
                ConsolePage.signIn(
                    message: "The name, password or authentication code is not right, or the account is locked. "
                        + "After several failed attempts an account is locked for a while.",
                    name: shown),
                status: .unauthorized)
        }
    }

    func cookie(value: String, maxAge: Int?) -> Cookie {
        Cookie(
            name: Self.cookieName, value: value, maxAge: maxAge, path: "/console", secure: services.secureCookies, httpOnly: true,
            sameSite: .strict)
    }

    // MARK: - Forms

    /// The query's parameters, the first value of each.
    static func query(_ request: Request) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where values[String(name)] == nil {
            values[String(name)] = String(value)
        }
        return values
    }

    static func form(_ request: Request) async throws -> ConsoleForm? {
        guard request.method == .post else { return nil }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: ConsoleForm.maxBytes)
        } catch {
            return nil
        }
        return ConsoleForm(contentType: request.headers[.contentType], body: String(buffer: buffer))
    }

    /// Whether the request's `Origin`, when the browser sent one, names the host it was sent to.
    static func sameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority, let url = URL(string: origin), let originHost = url.host else {
            return false
        }
        let originAuthority = url.port.map { "\(originHost):\($0)" } ?? originHost
        return originAuthority.lowercased() == host.lowercased()
    }
}
