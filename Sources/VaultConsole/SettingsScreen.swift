import Hummingbird
import Vault

/// Settings: for an admin, the operators (``OperatorsSection``: list, create, reset, disable) and a
/// merchant's custom fields and API keys (``MerchantSettingsSection``); other roles see none of
/// these forms, and their posts are refused anyway.
struct SettingsScreen {
    let services: ConsoleServices

    /// The page; `operatorProblem` puts a refused create or reset's message in its form.
    func page(
        signed: ConsoleSignedIn, merchantID: String? = nil, notice: Markup = "", operatorProblem: OperatorsSection.Problem? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let content: Markup
        if signed.account.role.allows(.administer) {
            content = """
                \(notice)\(try await OperatorsSection(services: services).section(signed: signed, problem: operatorProblem))
                \(try await MerchantSettingsSection(services: services).section(chosen: merchantID, signed: signed))
                """
        } else {
            content = "\(notice)<p>Settings are managed by operators with the admin role.</p>"
        }
        return ConsoleResponses.html(
            ConsolePage.shell(current: "settings", title: "Settings", account: signed.account, csrf: signed.csrf, content: content), status: status)
    }
}
