import Foundation
import Hummingbird
import Vault

/// The admin's part of Settings for one merchant (chosen among those the operator may see): its
/// custom field definitions, listed, added and removed as one checked set through
/// `CustomFieldService` (what `PUT /v1/custom-fields` calls), and its API keys through
/// `MerchantService` (what `vault merchant key` calls): label, role, created, last used, expiry;
/// issue, with an optional last day (a date in the merchant's zone: the key works through that
/// day and expires at the midnight that ends it), the secret shown once on the result page and
/// never again (only a keyed hash of it is stored); revoke behind a confirmation. Every change is audited under the operator.
struct MerchantSettingsSection {
    let services: ConsoleServices

    /// The merchants the operator may see, and the one `query` chooses (the first by default).
    func merchants(_ signed: ConsoleSignedIn, chosen id: String?) async throws -> (all: [Merchant], chosen: Merchant?) {
        let all = try await services.merchants.merchants().filter { signed.account.covers(merchantID: $0.id) }
        return (all, all.first { $0.id == id } ?? (id == nil ? all.first : nil))
    }

    /// The section: a merchant chooser, the custom fields and the API keys of the chosen merchant.
    func section(chosen id: String?, signed: ConsoleSignedIn) async throws -> Markup {
        let (all, merchant) = try await merchants(signed, chosen: id)
        guard let merchant else { return all.isEmpty ? "" : "<p class=\"notice error\" role=\"alert\">No such merchant.</p>" }
        let options = Markup.joined(all.map { candidate in
            let selected: Markup = candidate.id == merchant.id ? " selected" : ""
            return "<option value=\"\(candidate.id)\"\(selected)>\(candidate.name)</option>"
        })
        let chooser: Markup = """
            <form class="search" method="get" action="/console/settings">
            <div><label for="merchant">Merchant</label><select id="merchant" name="merchant">\(options)</select></div>
            <button type="submit">Show</button></form>
            """
        return "\(chooser)\(try await customFields(merchant, signed: signed))\(try await apiKeys(merchant, signed: signed))"
    }

    private func hidden(_ merchant: Merchant, _ signed: ConsoleSignedIn) -> Markup {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(signed.csrf)\"><input type=\"hidden\" name=\"merchant\" value=\"\(merchant.id)\">"
    }

    private func customFields(_ merchant: Merchant, signed: ConsoleSignedIn) async throws -> Markup {
        let definitions = try await services.customFields.definitions(merchantID: merchant.id)
        let rows = definitions.map { definition -> Markup in
            """
            <tr><td class="mono">\(definition.name)</td><td>\(definition.required ? "yes" : "no")</td><td>\(definition.maxLength)</td>
            <td><form method="post" action="/console/settings/custom-fields/remove">\(hidden(merchant, signed))
            <input type="hidden" name="name" value="\(definition.name)">
            <button type="submit" class="danger" aria-label="Remove \(definition.name)">Remove</button></form></td></tr>
            """
        }
        let table: Markup =
            rows.isEmpty
            ? "<p role=\"status\">No custom field is defined.</p>"
            : """
            <div class="table" role="region" aria-label="Custom fields" tabindex="0"><table>
            <thead><tr><th scope="col">Name</th><th scope="col">Required</th><th scope="col">Longest value</th><th scope="col">Action</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            """
        return """
            <h2>Custom fields of \(merchant.name)</h2>
            <p>Removing a field leaves the values cards already carry unread; a card saved afterwards drops them.</p>\(table)
            <form method="post" action="/console/settings/custom-fields/add">\(hidden(merchant, signed))
            <label for="field-name">New field's name</label>
            <input type="text" id="field-name" name="name" required maxlength="\(CustomFieldDefinition.maximumNameLength)" autocomplete="off" spellcheck="false">
            <label for="field-length">Longest value (characters)</label>
            <input type="text" id="field-length" name="maxLength" inputmode="numeric" value="64" required autocomplete="off">
            <p><input type="checkbox" id="field-required" name="required" value="yes"> <label for="field-required" class="inline">Every card must carry it</label></p>
            <p><button type="submit">Add field</button></p></form>
            """
    }

    private func apiKeys(_ merchant: Merchant, signed: ConsoleSignedIn) async throws -> Markup {
        let when = { (instant: Date) in ConsoleFormat.instant(instant, zone: merchant.zone, zoneName: merchant.zoneName) }
        let rows = try await services.apiKeys.keys(merchantName: merchant.name).map { key, intact -> Markup in
            let state: String = !intact ? "tampered" : key.revokedAt.map { "revoked \(when($0))" } ?? (key.isExpired(at: Date()) ? "expired" : "active")
            let action: Markup =
                key.revokedAt == nil
                ? """
                <form method="post" action="/console/settings/api-keys/revoke">\(hidden(merchant, signed))
                <input type="hidden" name="key" value="\(key.id)">
                <button type="submit" class="danger" aria-label="Revoke \(key.id)">Revoke</button></form>
                """
                : ""
            return """
                <tr><td class="mono">\(key.id)</td><td>\(key.label ?? "")</td><td>\(key.role.rawValue)</td><td>\(when(key.createdAt))</td>
                <td>\(key.lastUsedAt.map(when) ?? "never")</td><td>\(key.expiresAt.map(when) ?? "never")</td><td>\(state)</td><td>\(action)</td></tr>
                """
        }
        let roles = Markup.joined(APIKeyRole.allCases.map { "<option value=\"\($0.rawValue)\">\($0.rawValue)</option>" })
        return """
            <h2>API keys of \(merchant.name)</h2>
            <div class="table" role="region" aria-label="API keys" tabindex="0"><table>
            <thead><tr><th scope="col">Key</th><th scope="col">Label</th><th scope="col">Role</th><th scope="col">Created</th>
            <th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">State</th><th scope="col">Action</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            <form method="post" action="/console/settings/api-keys/issue">\(hidden(merchant, signed))
            <label for="key-label">Label (who holds it, what for)</label>
            <input type="text" id="key-label" name="label" required maxlength="\(APIKeyLabel.maximumLength)" autocomplete="off">
            <label for="key-role">Role</label><select id="key-role" name="role">\(roles)</select>
            <label for="key-last-day">Last day it works (optional)
            <span class="hint">A date (YYYY-MM-DD) in \(merchant.zoneName), the merchant's zone: the key expires at the midnight that ends it. Empty: it never expires.</span></label>
            <input type="date" id="key-last-day" name="lastDay" min="\(CivilDate.today(in: merchant.zone).description)" autocomplete="off">
            <p><button type="submit">Issue a key</button></p></form>
            """
    }

    // MARK: - Posts

    /// The post to `/console/settings/<path>`.
    func post(_ path: String, form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        switch path {
        case "custom-fields/add": try await addField(form: form, signed: signed)
        case "custom-fields/remove": try await removeField(form: form, signed: signed)
        case "api-keys/issue": try await issueKey(form: form, signed: signed)
        default: try await revokeKey(form: form, signed: signed)
        }
    }

    private func chosen(_ form: ConsoleForm, _ signed: ConsoleSignedIn) async throws -> Merchant? {
        guard let id = form["merchant"], !id.isEmpty else { return nil }
        return try await merchants(signed, chosen: id).chosen
    }

    private func refused(_ message: String, merchant: Merchant?, signed: ConsoleSignedIn) async throws -> Response {
        try await SettingsScreen(services: services).page(
            signed: signed, merchantID: merchant?.id, notice: "<p class=\"notice error\" role=\"alert\">\(message)</p>", status: .unprocessableContent)
    }

    private func settings(_ merchant: Merchant) -> Response { ConsoleResponses.redirect("/console/settings?merchant=\(merchant.id)") }

    /// Adds a definition to the merchant's set, checked as the API checks a set.
    func addField(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let merchant = try await chosen(form, signed) else { return try await refused("Choose a merchant.", merchant: nil, signed: signed) }
        guard let maxLength = Int(form["maxLength"] ?? ""), CustomFieldDefinition.allowedMaxLengths.contains(maxLength) else {
            return try await refused(
                "The longest value is a number of characters from \(CustomFieldDefinition.allowedMaxLengths.lowerBound) to \(CustomFieldDefinition.allowedMaxLengths.upperBound).",
                merchant: merchant, signed: signed)
        }
        let definitions = try await services.customFields.definitions(merchantID: merchant.id)
        let added = CustomFieldDefinition(name: form["name"] ?? "", required: form["required"] == "yes", maxLength: maxLength)
        do {
            try await services.customFields.replace(definitions + [added], merchantID: merchant.id, actor: signed.account.actor)
        } catch let error as CardDataError {
            return try await refused("The field was not added: \(error.message)", merchant: merchant, signed: signed)
        }
        return settings(merchant)
    }

    /// Removes one definition from the merchant's set.
    func removeField(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let merchant = try await chosen(form, signed) else { return try await refused("Choose a merchant.", merchant: nil, signed: signed) }
        let definitions = try await services.customFields.definitions(merchantID: merchant.id)
        let kept = definitions.filter { $0.name != form["name"] }
        guard kept.count < definitions.count else { return try await refused("No custom field has that name.", merchant: merchant, signed: signed) }
        try await services.customFields.replace(kept, merchantID: merchant.id, actor: signed.account.actor)
        return settings(merchant)
    }

    /// Issues a key and shows its secret on this one page (never stored, never shown again).
    func issueKey(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let merchant = try await chosen(form, signed) else { return try await refused("Choose a merchant.", merchant: nil, signed: signed) }
        guard let role = APIKeyRole(rawValue: form["role"] ?? "") else {
            return try await refused("Choose the key's role.", merchant: merchant, signed: signed)
        }
        var expiresAt: Date?
        let lastDayText = (form["lastDay"] ?? "").trimmingCharacters(in: .whitespaces)
        if !lastDayText.isEmpty {
            let today = CivilDate.today(in: merchant.zone)
            guard let lastDay = CivilDate(iso: lastDayText) else {
                return try await refused("The key's last day is a date such as \(today.adding(days: 90)).", merchant: merchant, signed: signed)
            }
            guard !(lastDay < today) else {
                return try await refused(
                    "The key's last day \(lastDay) is in the past: today is \(today) in \(merchant.zoneName).", merchant: merchant, signed: signed)
            }
            expiresAt = DueInstant.instant(of: lastDay.adding(days: 1), at: .midnight, in: merchant.zone)
        }
        let issued: IssuedAPIKey
        do {
            issued = try await services.apiKeys.issueKey(
                merchantName: merchant.name, role: role, label: form["label"] ?? "", expiresAt: expiresAt, actor: signed.account.actor)
        } catch let error as MerchantSettingError {
            return try await refused("The key was not issued: its \(error.setting) \(error.message).", merchant: merchant, signed: signed)
        }
        let content: Markup = """
            <p class="notice" role="status">Key <span class="mono">\(issued.record.id)</span> (\(role.rawValue)) was issued for \(merchant.name)\(
                issued.record.expiresAt.map { "; it expires \(ConsoleFormat.instant($0, zone: merchant.zone, zoneName: merchant.zoneName))" } ?? "").
            Copy its secret now: it is shown on this page only and cannot be shown again.</p>
            <label for="secret">Secret (send as <code>Authorization: Bearer</code>)</label>
            <input type="text" id="secret" class="mono" value="\(issued.bearer)" readonly autocomplete="off" spellcheck="false">
            <p><a href="/console/settings?merchant=\(merchant.id)">Back to settings</a></p>
            """
        return ConsoleResponses.html(ConsolePage.shell(current: "settings", title: "API key issued", account: signed.account, csrf: signed.csrf, content: content))
    }

    /// The first post asks to confirm; the second revokes.
    func revokeKey(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let merchant = try await chosen(form, signed) else { return try await refused("Choose a merchant.", merchant: nil, signed: signed) }
        let keyID = form["key"] ?? ""
        guard let key = try await services.apiKeys.keys(merchantName: merchant.name).first(where: { $0.record.id == keyID })?.record, key.revokedAt == nil else {
            return try await refused("No active key has that id.", merchant: merchant, signed: signed)
        }
        guard form["confirm"] == "yes" else {
            let content: Markup = """
                <p class="notice" role="alert">Revoke key <span class="mono">\(key.id)</span>\(key.label.map { " (\($0))" } ?? "") of \(merchant.name)?
                Every request with it is refused from then on.</p>
                <form method="post" action="/console/settings/api-keys/revoke">\(hidden(merchant, signed))
                <input type="hidden" name="key" value="\(key.id)"><input type="hidden" name="confirm" value="yes">
                <p><button type="submit" class="danger">Revoke the key</button> <a href="/console/settings?merchant=\(merchant.id)">Cancel</a></p></form>
                """
            return ConsoleResponses.html(
                ConsolePage.shell(current: "settings", title: "Confirm revocation", account: signed.account, csrf: signed.csrf, content: content))
        }
        do {
            try await services.apiKeys.revokeKey(merchantName: merchant.name, keyID: key.id, actor: signed.account.actor)
        } catch let error as MerchantError {
            return try await refused("The key was not revoked: \(error).", merchant: merchant, signed: signed)
        }
        return settings(merchant)
    }
}
