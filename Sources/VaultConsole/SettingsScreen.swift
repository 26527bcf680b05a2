import Hummingbird
import Vault

/// Settings: for an admin, the operators with a button to disable each (other than oneself), and a
/// merchant's custom fields and API keys (``MerchantSettingsSection``); other roles see none of
/// these forms, and their posts are refused anyway.
struct SettingsScreen {
    let services: ConsoleServices

    func page(signed: ConsoleSignedIn, merchantID: String? = nil, notice: Markup = "", status: HTTPResponse.Status = .ok) async throws -> Response {
        var content: Markup = notice
        if signed.account.role.allows(.administer) {
            var rows: [Markup] = []
            for account in try await services.operators.list() {
                var action: Markup = ""
                if account.status == .active && account.id != signed.account.id {
                    action = """
                        <form method="post" action="/console/settings/operators/disable">
                        <input type="hidden" name="csrf" value="\(signed.csrf)"><input type="hidden" name="name" value="\(account.name)">
                        <button type="submit" class="danger" aria-label="Disable \(account.name)">Disable</button></form>
                        """
                }
                rows.append(
                    "<tr><td>\(account.name)</td><td>\(account.role.rawValue)</td><td>\(account.status.rawValue)</td><td>\(action)</td></tr>")
            }
            content = """
                \(notice)<h2>Operators</h2>
                <p>Operators are created and reset with <code>vault operator</code> on the server.</p>
                <div class="table" role="region" aria-label="Operators" tabindex="0"><table>
                <thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                \(try await MerchantSettingsSection(services: services).section(chosen: merchantID, signed: signed))
                """
        } else {
            content = "\(notice)<p>Settings are managed by operators with the admin role.</p>"
        }
        return ConsoleResponses.html(
            ConsolePage.shell(current: "settings", title: "Settings", account: signed.account, csrf: signed.csrf, content: content), status: status)
    }

    func disable(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let name = form["name"], MerchantName.isValid(name), name != signed.account.name else {
            return try await page(signed: signed, notice: "<p class=\"notice error\" role=\"alert\">Choose another operator to disable.</p>")
        }
        do {
            try await services.operators.disable(name: name, actor: signed.account.actor)
        } catch OperatorError.notFound {
            return try await page(signed: signed, notice: "<p class=\"notice error\" role=\"alert\">No operator is named \(name).</p>")
        }
        return ConsoleResponses.redirect("/console/settings")
    }
}
