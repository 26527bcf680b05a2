import Foundation
import Hummingbird
import Vault

/// The admin's operators part of Settings: every operator with its role, the merchants it covers,
/// its status, lockout and last sign-in; create, reset and disable through ``OperatorService`` (what
/// `vault operator create|reset|disable` calls), audited under the operator who did it.
///
/// Create and reset show the new authenticator enrolment (the base32 secret and its `otpauth://`
/// URI) on their result page only: the secret is sealed in storage and never shown again.
/// Passwords are typed twice, checked against the service's strength floor, and never written back
/// into a page, a log or an audit event. An admin cannot reset or disable their own account here
/// (that would sign them out for good), and an admin limited to some merchants manages only
/// operators within those merchants: otherwise a reset would hand them a wider account.
struct OperatorsSection {
    let services: ConsoleServices

    /// A refused create or reset: the message shown in that form, and what was typed (never a password).
    struct Problem {
        enum Form { case create, reset }
        var form: Form
        var message: String
        var name = ""
        var role: OperatorRole?
    }

    // MARK: - Section

    /// The operator list and the create and reset forms.
    func section(signed: ConsoleSignedIn, problem: Problem? = nil) async throws -> Markup {
        let merchants = try await services.merchants.merchants()
        let names = Dictionary(merchants.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let accounts = try await services.operators.list()
        let now = Date()
        let rows = accounts.map { account -> Markup in
            var action: Markup = ""
            if account.status == .active && account.id != signed.account.id && signed.account.manages(account) {
                action = """
                    <form method="post" action="/console/settings/operators/disable">
                    <input type="hidden" name="csrf" value="\(signed.csrf)"><input type="hidden" name="name" value="\(account.name)">
                    <button type="submit" class="danger" aria-label="Disable \(account.name)">Disable</button></form>
                    """
            }
            let covered = account.merchantIDs.map { ids in ids.map { names[$0] ?? $0 }.joined(separator: ", ") } ?? "every merchant"
            var state = account.status.rawValue
            if account.isLocked(at: now), let until = account.lockedUntil {
                state += ", locked until \(Self.utc(until))"
            } else if account.failedSignIns > 0 {
                state += ", \(account.failedSignIns) failed sign-in\(account.failedSignIns == 1 ? "" : "s")"
            }
            // The step of the last code accepted is the time of the last sign-in, to the 30-second step.
            let lastSignIn = account.lastCodeStep.map { Self.utc(Date(timeIntervalSince1970: Double($0 * TOTP.stepSeconds))) } ?? "never"
            return """
                <tr><td>\(account.name)</td><td>\(account.role.rawValue)</td><td>\(covered)</td><td>\(state)</td><td>\(lastSignIn)</td><td>\(action)</td></tr>
                """
        }
        let others = accounts.filter { $0.id != signed.account.id && signed.account.manages($0) }
        let covered = merchants.filter { signed.account.covers(merchantID: $0.id) }
        return """
            <h2>Operators</h2>
            <p>Each person signs in with their own account: a password and a code from an authenticator app. You cannot reset or disable
            your own account here, since that would sign you out for good: another admin can, or <code>vault operator reset</code> on the server.</p>
            <div class="table" role="region" aria-label="Operators" tabindex="0"><table>
            <thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Merchants</th><th scope="col">Status</th>
            <th scope="col">Last sign-in</th><th scope="col">Action</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            \(createForm(signed: signed, merchants: covered, problem: problem?.form == .create ? problem : nil))
            \(resetForm(signed: signed, others: others, problem: problem?.form == .reset ? problem : nil))
            """
    }

    /// An instant in UTC, to the second, the zone named (operators belong to no one merchant's zone).
    static func utc(_ instant: Date) -> String {
        ConsoleFormat.instant(instant, zone: TimeZone(identifier: "UTC")!, zoneName: "UTC")
    }

    private func error(_ problem: Problem?, id: String) -> Markup {
        problem.map { "<p class=\"notice error\" role=\"alert\" id=\"\(id)\">\($0.message)</p>" } ?? ""
    }

    private func passwordFields(_ prefix: String, described: Bool) -> Markup {
        let describedBy: Markup = described ? " aria-describedby=\"\(prefix)-error\"" : ""
        return """
            <label for="\(prefix)-password">\(prefix == "new" ? "Initial password" : "New password")
            <span class="hint">At least \(OperatorPassword.minimumLength) characters, not a common password. Give it to the person by another channel.</span></label>
            <input type="password" id="\(prefix)-password" name="password" required minlength="\(OperatorPassword.minimumLength)" autocomplete="new-password"\(describedBy)>
            <label for="\(prefix)-password-again">The password again</label>
            <input type="password" id="\(prefix)-password-again" name="passwordAgain" required minlength="\(OperatorPassword.minimumLength)" autocomplete="new-password">
            """
    }

    private func createForm(signed: ConsoleSignedIn, merchants: [Merchant], problem: Problem?) -> Markup {
        let roles = Markup.joined(OperatorRole.allCases.map { role in
            let selected: Markup = role == (problem?.role ?? .readonly) ? " selected" : ""
            return "<option value=\"\(role.rawValue)\"\(selected)>\(role.rawValue)</option>"
        })
        let everyMerchant: Markup =
            signed.account.merchantIDs == nil
            ? """
            <p><input type="radio" id="new-scope-all" name="scope" value="all" checked> <label for="new-scope-all" class="inline">Every merchant, present and future</label></p>
            <p><input type="radio" id="new-scope-some" name="scope" value="some"> <label for="new-scope-some" class="inline">Only the merchants ticked below</label></p>
            """
            : "<input type=\"hidden\" name=\"scope\" value=\"some\"><p>Only the merchants ticked below (you cover only these).</p>"
        let boxes = Markup.joined(merchants.map { merchant in
            """
            <p><input type="checkbox" id="new-merchant-\(merchant.id)" name="merchant-\(merchant.name)" value="yes">
            <label for="new-merchant-\(merchant.id)" class="inline">\(merchant.name)</label></p>
            """
        })
        return """
            <h2>Create an operator</h2>
            <form method="post" action="/console/settings/operators/create" autocomplete="off">\(error(problem, id: "new-error"))
            <input type="hidden" name="csrf" value="\(signed.csrf)">
            <label for="new-name">Name <span class="hint">1-64 letters, digits, '.', '_' or '-'; the person's own, never shared.</span></label>
            <input type="text" id="new-name" name="name" value="\(problem?.name ?? "")" required maxlength="64" autocomplete="off" autocapitalize="none" spellcheck="false">
            <label for="new-role">Role</label><select id="new-role" name="role">\(roles)</select>
            <fieldset><legend>Merchants it may see</legend>\(everyMerchant)\(boxes)</fieldset>
            \(passwordFields("new", described: problem != nil))
            <p><button type="submit">Create the operator</button></p></form>
            """
    }

    private func resetForm(signed: ConsoleSignedIn, others: [Operator], problem: Problem?) -> Markup {
        guard !others.isEmpty else { return "" }
        let options = Markup.joined(others.map { account in
            let selected: Markup = account.name == problem?.name ? " selected" : ""
            return "<option value=\"\(account.name)\"\(selected)>\(account.name) (\(account.role.rawValue))</option>"
        })
        return """
            <h2>Reset an operator</h2>
            <p>A reset gives a new password and a new authenticator secret, re-enables and unlocks the account, and ends its sessions
            (a lost phone, a forgotten password, a departure reversed).</p>
            <form method="post" action="/console/settings/operators/reset" autocomplete="off">\(error(problem, id: "reset-error"))
            <input type="hidden" name="csrf" value="\(signed.csrf)">
            <label for="reset-name">Operator</label><select id="reset-name" name="name">\(options)</select>
            \(passwordFields("reset", described: problem != nil))
            <p><button type="submit" class="danger">Reset the operator</button></p></form>
            """
    }

    // MARK: - Posts

    /// The post to `/console/settings/operators/<action>`.
    func post(_ action: String, form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        switch action {
        case "create": try await create(form: form, signed: signed)
        case "reset": try await reset(form: form, signed: signed)
        default: try await disable(form: form, signed: signed)
        }
    }

    private func refused(_ problem: Problem, signed: ConsoleSignedIn, status: HTTPResponse.Status = .unprocessableContent) async throws -> Response {
        try await SettingsScreen(services: services).page(signed: signed, operatorProblem: problem, status: status)
    }

    /// The typed password, when both copies agree; the problem otherwise.
    private func password(_ form: ConsoleForm) -> Result<String, PasswordMismatch> {
        let password = form["password"] ?? ""
        guard !password.isEmpty, password == form["passwordAgain"] else { return .failure(PasswordMismatch()) }
        return .success(password)
    }

    private struct PasswordMismatch: Error {
        let message = "The two passwords are not the same: type the password again in both fields."
    }

    /// Creates an operator with the typed name, role, merchants and password, and shows its enrolment once.
    func create(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        let name = form["name"] ?? ""
        let role = form["role"].flatMap(OperatorRole.init(rawValue:))
        let shownName = MerchantName.isValid(name) ? name : ""
        let problem = { (message: String) in Problem(form: .create, message: message, name: shownName, role: role) }
        guard let role else { return try await refused(problem("Choose the operator's role."), signed: signed) }
        var merchantNames: [String] = []
        switch form["scope"] {
        case "all":
            guard signed.account.merchantIDs == nil else {
                return try await refused(problem("You cover only some merchants, so you can give only those."), signed: signed, status: .forbidden)
            }
        case "some":
            merchantNames = chosenMerchants(form)
            guard !merchantNames.isEmpty else {
                return try await refused(problem("Tick at least one merchant, or choose every merchant."), signed: signed)
            }
        default:
            return try await refused(problem("Choose every merchant or the merchants ticked."), signed: signed)
        }
        let password: String
        switch self.password(form) {
        case .success(let typed): password = typed
        case .failure(let mismatch): return try await refused(problem(mismatch.message), signed: signed)
        }
        if signed.account.merchantIDs != nil {
            for merchantName in merchantNames {
                guard let merchant = try await services.merchants.merchant(named: merchantName), signed.account.covers(merchantID: merchant.id) else {
                    return try await refused(problem("No merchant you cover is named \(merchantName)."), signed: signed)
                }
            }
        }
        let created: (account: Operator, enrollment: OperatorService.Enrollment)
        do {
            created = try await services.operators.create(
                name: name, role: role, merchantNames: merchantNames, password: password, actor: signed.account.actor)
        } catch let error as OperatorError {
            let message =
                switch error {
                case .nameTaken(let taken):
                    "An operator named \(taken) exists already. If you created it just now and did not see its authenticator secret, reset it."
                default: "The operator was not created: \(error.description)."
                }
            return try await refused(problem(message), signed: signed)
        }
        return enrolled(created.account, created.enrollment, verb: "created", signed: signed)
    }

    /// The merchant names ticked on the create form (`merchant-<name>=yes`), by name; a name that is
    /// no merchant's (a forged post) is passed on for the service to refuse.
    private func chosenMerchants(_ form: ConsoleForm) -> [String] {
        form.names.filter { $0.hasPrefix("merchant-") && form[$0] == "yes" }.map { String($0.dropFirst("merchant-".count)) }.sorted()
    }

    /// Gives another operator a new password and authenticator secret, and shows the enrolment once.
    func reset(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        let name = form["name"] ?? ""
        let problem = { (message: String) in Problem(form: .reset, message: message, name: MerchantName.isValid(name) ? name : "") }
        guard name != signed.account.name else {
            return try await refused(
                problem("You cannot reset your own account here: another admin can, or vault operator reset on the server."), signed: signed)
        }
        guard MerchantName.isValid(name), let account = try await services.operators.list().first(where: { $0.name == name }) else {
            return try await refused(problem("No operator is named \(name)."), signed: signed)
        }
        guard signed.account.manages(account) else {
            return try await refused(
                problem("\(name) covers merchants you do not: an admin of every merchant resets it."), signed: signed, status: .forbidden)
        }
        let password: String
        switch self.password(form) {
        case .success(let typed): password = typed
        case .failure(let mismatch): return try await refused(problem(mismatch.message), signed: signed)
        }
        let reset: (account: Operator, enrollment: OperatorService.Enrollment)
        do {
            reset = try await services.operators.reset(name: name, password: password, actor: signed.account.actor)
        } catch let error as OperatorError {
            return try await refused(problem("The operator was not reset: \(error.description)."), signed: signed)
        }
        return enrolled(reset.account, reset.enrollment, verb: "reset", signed: signed)
    }

    /// Disables another operator and ends its sessions.
    func disable(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        let refused = { (message: String, status: HTTPResponse.Status) in
            try await SettingsScreen(services: services).page(
                signed: signed, notice: "<p class=\"notice error\" role=\"alert\">\(message)</p>", status: status)
        }
        guard let name = form["name"], MerchantName.isValid(name), name != signed.account.name else {
            return try await refused("Choose another operator to disable.", .unprocessableContent)
        }
        if let account = try await services.operators.list().first(where: { $0.name == name }), !signed.account.manages(account) {
            return try await refused("\(name) covers merchants you do not: an admin of every merchant disables it.", .forbidden)
        }
        do {
            try await services.operators.disable(name: name, actor: signed.account.actor)
        } catch OperatorError.notFound {
            return try await refused("No operator is named \(name).", .unprocessableContent)
        }
        return ConsoleResponses.redirect("/console/settings")
    }

    /// The one page that shows a new enrolment (every console page is `Cache-Control: no-store`).
    private func enrolled(_ account: Operator, _ enrollment: OperatorService.Enrollment, verb: String, signed: ConsoleSignedIn) -> Response {
        let content: Markup = """
            <p class="notice" role="status">Operator \(account.name) (\(account.role.rawValue)) was \(verb). Enrol its authenticator now:
            this secret is shown on this page only and cannot be shown again. Give it, and the password, to \(account.name) in person or by
            another secure channel.</p>
            <label for="totp-secret">Authenticator secret (type it into the app as a time-based key)</label>
            <input type="text" id="totp-secret" class="mono" value="\(enrollment.secret)" readonly autocomplete="off" spellcheck="false">
            <label for="otpauth-uri">otpauth URI (for an app or password manager that takes one)</label>
            <input type="text" id="otpauth-uri" class="mono" value="\(enrollment.uri)" readonly autocomplete="off" spellcheck="false">
            <p><a href="/console/settings">Back to settings</a></p>
            """
        return ConsoleResponses.html(
            ConsolePage.shell(current: "settings", title: "Operator \(verb)", account: signed.account, csrf: signed.csrf, content: content))
    }
}

extension Operator {
    /// Whether this admin may create, reset or disable `other`: an admin of every merchant manages
    /// everyone; one limited to some merchants manages only operators limited to merchants among its own.
    func manages(_ other: Operator) -> Bool {
        guard let mine = merchantIDs else { return true }
        guard let theirs = other.merchantIDs else { return false }
        return theirs.allSatisfy(mine.contains)
    }
}
