import Foundation
import Hummingbird
import Vault

/// What an operator does to a card from its page, through `SecureCardService` as the API does,
/// audited under the operator: update its customer details and custom field values
/// (`secure_card.updated`, support and admin), delete it (`secure_card.deleted`, after a
/// confirmation; its schedules cancelled only when asked; admin), and purge its card data for good
/// (`secure_card.purged`, confirmed by typing the card's merchant reference; admin). A form is shown
/// only to a role its ``ConsoleAction`` allows, and its post is refused to any other.
struct CardActions {
    let services: ConsoleServices

    /// The customer fields of the update form: form name, label, input type and autocomplete hint.
    static let customerFields: [(name: String, label: String, type: String)] = [
        ("email", "Customer e-mail", "email"), ("mobileNumber", "Customer phone", "tel"), ("city", "City", "text"), ("region", "Region", "text"),
        ("country", "Country (two letters)", "text"),
    ]

    /// The forms of a card's page the operator's role may use: update and delete for a live card,
    /// purge for any card whose data is still held.
    func forms(_ card: SecureCard, merchant: Merchant, definitions: [CustomFieldDefinition], signed: ConsoleSignedIn) -> Markup {
        let base = "/console/cards/\(merchant.id)/\(card.reference)"
        let csrf = signed.csrf
        var forms: [Markup] = []
        if card.status == .active && signed.may(.updateCard) {
            let customer = card.customer
            let values: [String: String?] = [
                "email": customer?.email, "mobileNumber": customer?.mobileNumber, "city": customer?.city, "region": customer?.region,
                "country": customer?.country,
            ]
            let customerInputs = Markup.joined(Self.customerFields.map { field in
                """
                <label for="customer-\(field.name)">\(field.label)</label>
                <input type="\(field.type)" id="customer-\(field.name)" name="\(field.name)" value="\((values[field.name] ?? nil) ?? "")" autocomplete="off">
                """
            })
            let fieldInputs = Markup.joined(definitions.map { definition in
                let value = card.customFields.first { $0.name == definition.name }?.value ?? ""
                let required: Markup = definition.required ? " required" : ""
                return """
                    <label for="field-\(definition.name)">\(definition.name)\(definition.required ? " (required)" : "")</label>
                    <input type="text" id="field-\(definition.name)" name="field.\(definition.name)" value="\(value)" maxlength="\(definition.maxLength)" autocomplete="off"\(required)>
                    """
            })
            let fieldset: Markup = definitions.isEmpty ? "" : "<fieldset><legend>Custom fields</legend>\(fieldInputs)</fieldset>"
            forms.append(
                """
                <h2>Update details</h2>
                <form method="post" action="\(base)/update"><input type="hidden" name="csrf" value="\(csrf)">
                <fieldset><legend>Customer</legend>\(customerInputs)</fieldset>\(fieldset)
                <p>An emptied field is cleared.</p>
                <p><button type="submit">Save details</button></p></form>
                """)
        }
        if card.status == .active && signed.may(.deleteCard) {
            forms.append(
                """
                <h2>Delete</h2>
                <form method="post" action="\(base)/delete"><input type="hidden" name="csrf" value="\(csrf)">
                <p><button type="submit" class="danger">Review deletion</button></p></form>
                """)
        }
        if card.purgedAt == nil && signed.may(.purgeCard) {
            forms.append(
                """
                <h2>Purge card data</h2>
                <form method="post" action="\(base)/purge"><input type="hidden" name="csrf" value="\(csrf)">
                <p>Purging destroys the card number for good: the card can never be charged again. The token and its history stay.</p>
                <label for="purge-reference">Type the card's reference, \(card.merchantReference), to confirm</label>
                <input type="text" id="purge-reference" name="reference" required autocomplete="off" spellcheck="false">
                <p><button type="submit" class="danger">Purge card data</button></p></form>
                """)
        }
        return Markup.joined(forms)
    }

    /// The card of a path, when the operator may see it.
    private func find(merchantID: String, reference: String, signed: ConsoleSignedIn) async throws -> (Merchant, SecureCard)? {
        guard signed.account.covers(merchantID: merchantID), let merchant = try await services.merchants.merchant(id: merchantID),
              OpaqueToken.isWellFormed(reference, prefix: "sc_")
        else { return nil }
        do {
            return (merchant, try await services.cards.retrieve(reference: reference, merchant: merchant))
        } catch SecureCardError.notFound {
            return nil
        }
    }

    private func back(_ merchantID: String, _ reference: String, _ signed: ConsoleSignedIn, _ message: String) async throws -> Response {
        try await CardsScreen(services: services).detail(
            merchantID: merchantID, reference: reference, signed: signed, notice: "<p class=\"notice error\" role=\"alert\">\(message)</p>",
            status: .unprocessableContent)
    }

    /// Replaces the customer details and custom field values with the form's: a filled field sets,
    /// an emptied one clears.
    func update(merchantID: String, reference: String, form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let (merchant, card) = try await find(merchantID: merchantID, reference: reference, signed: signed), card.status == .active else {
            return CardsScreen(services: services).notFound(signed)
        }
        func patch(_ name: String) -> PatchField<String> {
            let value = form[name]?.trimmingCharacters(in: .whitespaces) ?? ""
            return value.isEmpty ? .clear : .set(value)
        }
        let customer = CustomerUpdate(
            email: patch("email"), mobileNumber: patch("mobileNumber"), city: patch("city"), region: patch("region"), country: patch("country"))
        var fields: [CustomField] = []
        for definition in try await services.customFields.definitions(merchantID: merchant.id) {
            let value = form["field.\(definition.name)"] ?? ""
            if !value.isEmpty { fields.append(CustomField(name: definition.name, value: value)) }
        }
        do {
            _ = try await services.cards.update(
                merchantReference: card.merchantReference, with: SecureCardUpdate(customer: .set(customer), customFields: .set(fields)), merchant: merchant,
                actor: signed.account.actor)
        } catch let error as CardDataError {
            return try await back(merchantID, reference, signed, error.message)
        } catch SecureCardError.notFound, SecureCardError.purged {
            return try await back(merchantID, reference, signed, "The card cannot be updated any more.")
        }
        return ConsoleResponses.redirect("/console/cards/\(merchant.id)/\(card.reference)")
    }

    /// The first post asks to confirm (and whether to cancel the card's schedules); the second deletes.
    func delete(merchantID: String, reference: String, form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let (merchant, card) = try await find(merchantID: merchantID, reference: reference, signed: signed), card.status == .active else {
            return CardsScreen(services: services).notFound(signed)
        }
        let base = "/console/cards/\(merchant.id)/\(card.reference)"
        guard form["confirm"] == "yes" else {
            let content: Markup = """
                <p class="notice" role="alert">Delete card <strong>\(card.merchantReference)</strong> (<span class="mono">\(card.maskedNumber)</span>)?
                It can no longer be charged; its history stays.</p>
                <form method="post" action="\(base)/delete"><input type="hidden" name="csrf" value="\(signed.csrf)">
                <input type="hidden" name="confirm" value="yes">
                <p><input type="checkbox" id="cancel-schedules" name="cancelSchedules" value="yes">
                <label for="cancel-schedules" class="inline">Also cancel the schedules that charge it</label></p>
                <p><button type="submit" class="danger">Delete the card</button> <a href="\(base)">Cancel</a></p></form>
                """
            return ConsoleResponses.html(
                ConsolePage.shell(current: "cards", title: "Confirm deletion", account: signed.account, csrf: signed.csrf, content: content))
        }
        do {
            _ = try await services.cards.delete(
                merchantReference: card.merchantReference, cancelSchedules: form["cancelSchedules"] == "yes", purge: false, merchant: merchant,
                actor: signed.account.actor)
        } catch SecureCardError.inUse(let schedules) {
            return try await back(
                merchantID, reference, signed,
                "Schedules still charge this card (\(schedules.joined(separator: ", "))): delete it again and choose to cancel them.")
        } catch SecureCardError.notFound {
            return try await back(merchantID, reference, signed, "The card is not there any more.")
        }
        return ConsoleResponses.redirect(base)
    }

    /// Purges the card's data when the form carries its merchant reference exactly; anything else changes nothing.
    func purge(merchantID: String, reference: String, form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let (merchant, card) = try await find(merchantID: merchantID, reference: reference, signed: signed), card.purgedAt == nil else {
            return CardsScreen(services: services).notFound(signed)
        }
        guard form["reference"] == card.merchantReference else {
            return try await back(merchantID, reference, signed, "Type the card's reference exactly to purge it; nothing was purged.")
        }
        do {
            _ = try await services.cards.delete(
                merchantReference: card.status == .active ? card.merchantReference : card.reference, cancelSchedules: false, purge: true,
                merchant: merchant, actor: signed.account.actor)
        } catch SecureCardError.inUse(let schedules) {
            return try await back(
                merchantID, reference, signed, "Schedules still charge this card (\(schedules.joined(separator: ", "))): delete it with them first.")
        } catch SecureCardError.notFound {
            return try await back(merchantID, reference, signed, "The card is not there any more.")
        }
        return ConsoleResponses.redirect("/console/cards/\(merchant.id)/\(card.reference)")
    }
}
