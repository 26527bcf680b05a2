import Foundation
import Hummingbird
import Scheduler
import Vault

/// Changing a schedule from its page (support and admin): a new amount for the steps not yet charged
/// and/or another card of the merchant (by token or merchant reference), through
/// `ScheduleService.change`, the call `PATCH /v1/schedules/{id}` makes, audited under the operator
/// (`schedule.changed`). The first post checks what was typed and shows a confirmation with the old
/// and new amount in the currency's own format and the old and new card (brand and last four); only
/// the second acts. A move of a confirmed schedule to another card makes that card's first use as
/// the API does. The confirmation carries a one-time key claimed through the API's idempotency
/// service, so a double submit changes the schedule once: a later change by someone else is never
/// overwritten by a resent form.
struct ScheduleChangeScreen {
    let services: ConsoleServices

    /// The prefix of the confirmation's one-time key.
    static let onceKeyPrefix = "once_"

    private var schedules: ScheduleService { services.scheduling.schedules }

    /// The change form of the schedule's page, for an open schedule.
    static func form(merchant: Merchant, schedule: Schedule, csrf: String) -> Markup {
        guard schedule.status.isOpen else { return "" }
        let decimals = schedule.currency.minorUnitExponent
        let example = decimals == 0 ? "5000" : "12.5" + String(repeating: "0", count: decimals - 1)
        return """
            <h2>Change</h2>
            <form method="post" action="/console/schedules/\(merchant.id)/\(schedule.id)/change"><input type="hidden" name="csrf" value="\(csrf)">
            <label for="change-amount">New amount per step in \(schedule.currency.code) (steps not yet charged), e.g. \(example)</label>
            <input type="text" id="change-amount" name="amount" inputmode="decimal" autocomplete="off">
            <label for="change-card">Another card: its token or the merchant's reference</label>
            <input type="text" id="change-card" name="card" autocomplete="off" spellcheck="false">
            <p>Leave a field empty to keep it. Nothing changes until you confirm on the next page.</p>
            <p><button type="submit">Review change</button></p></form>
            """
    }

    /// `visa ending 1111`: a card as the confirmation names it.
    static func masked(_ card: SecureCard) -> String {
        "\(card.cardType.rawValue) ending \(card.last4)"
    }

    /// The first post (without `confirm`) checks the fields and asks to confirm; the second changes.
    func change(merchantID: String, id: String, form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        let screen = SchedulesScreen(services: services)
        guard let (merchant, view) = try await screen.find(merchantID: merchantID, id: id, signed: signed) else { return screen.notFound(signed) }
        let schedule = view.schedule
        let back = { (message: String, status: HTTPResponse.Status) in
            try await screen.detail(
                merchantID: merchant.id, id: schedule.id, signed: signed, notice: "<p class=\"notice error\" role=\"alert\">\(message)</p>", status: status)
        }
        guard schedule.status.isOpen else {
            return try await back("The schedule is \(schedule.status.rawValue); it cannot be changed any more.", .conflict)
        }
        let typedAmount = form["amount"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let typedCard = form["card"]?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !typedAmount.isEmpty || !typedCard.isEmpty else {
            return try await back("Give a new amount, another card, or both; nothing was changed.", .unprocessableContent)
        }
        var amount: Int64?
        if !typedAmount.isEmpty {
            guard let minor = ConsoleFormat.minorUnits(typed: typedAmount, schedule.currency) else {
                let decimals = schedule.currency.minorUnitExponent
                return try await back(
                    "The new amount must be a number above zero in \(schedule.currency.code) with at most \(decimals) decimal\(decimals == 1 ? "" : "s"); nothing was changed.",
                    .unprocessableContent)
            }
            amount = minor
        }
        var card: SecureCard?
        if !typedCard.isEmpty {
            guard typedCard.count <= 128, let found = try await liveCard(typedCard, merchant: merchant, actor: signed.account.actor) else {
                return try await back("No live card of this merchant has that token or reference; nothing was changed.", .unprocessableContent)
            }
            card = found
        }
        guard form["confirm"] == "yes" else {
            // What the schedule already has is no change (after the confirmation, a resent form is
            // answered by its one-time key instead).
            if card?.reference == schedule.secureCardReference { card = nil }
            if amount == schedule.amount { amount = nil }
            guard amount != nil || card != nil else {
                return try await back("The schedule already has that amount and card; nothing was changed.", .unprocessableContent)
            }
            let current = try? await services.cards.retrieve(reference: schedule.secureCardReference, merchant: merchant, readBy: signed.account.actor)
            return confirmation(merchant: merchant, schedule: schedule, amount: amount, card: card, current: current, signed: signed)
        }
        guard let once = form["once"], OpaqueToken.isWellFormed(once, prefix: Self.onceKeyPrefix, randomBits: 128) else {
            return try await back("This confirmation is not valid: review the change again and confirm it.", .unprocessableContent)
        }
        let idempotency = services.scheduling.idempotency
        let fingerprint = Array("console/schedules/\(schedule.id)/change\n\(amount.map(String.init) ?? "")\n\(card?.reference ?? "")".utf8)
        let claim: IdempotencyService.Claim
        switch try await idempotency.claim(merchantID: merchant.id, key: "console-\(once)", request: fingerprint, transactionID: "") {
        case .started(let started), .takenOver(let started):
            claim = started
        case .replay:
            return ConsoleResponses.redirect("/console/schedules/\(merchant.id)/\(schedule.id)")
        case .mismatch, .responseDestroyed:
            return try await back("This confirmation was already used: review the change again and confirm it.", .conflict)
        case .inProgress:
            return try await back("This change is being made by an earlier submit of the same form: reload the schedule.", .conflict)
        }
        do {
            _ = try await schedules.change(
                id: schedule.id, ScheduleChange(amount: amount, secureCardReference: card?.reference), merchant: merchant, actor: signed.account.actor)
        } catch {
            try? await idempotency.release(claim)
            switch error {
            case let refusal as ScheduleError:
                return try await screen.refused(refusal, merchant: merchant, id: schedule.id, signed: signed)
            case SecureCardError.verificationDeclined:
                return try await back(
                    "The gateway declined the new card's first use (a verification with the customer's consent); the schedule was not changed.", HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required"))
            case SecureCardError.verificationUnavailable:
                return try await back("The gateway could not verify the new card now; the schedule was not changed. Try again later.", .serviceUnavailable)
            case let refusal as CardDataError:
                return try await back("\(refusal.message) The schedule was not changed.", .unprocessableContent)
            default:
                throw error
            }
        }
        try await idempotency.complete(claim, status: 200, body: Array(schedule.id.utf8))
        return ConsoleResponses.redirect("/console/schedules/\(merchant.id)/\(schedule.id)")
    }

    /// The page that states the change and carries the confirming form.
    private func confirmation(
        merchant: Merchant, schedule: Schedule, amount: Int64?, card: SecureCard?, current: SecureCard?, signed: ConsoleSignedIn
    ) -> Response {
        let oldAmount = ConsoleFormat.amount(schedule.amount, schedule.currency)
        let oldCard = current.map(Self.masked) ?? "the card on file"
        var rows: [Markup] = []
        var hidden: [Markup] = []
        if let amount {
            rows.append(
                "<tr><th scope=\"row\">Amount per step</th><td>\(oldAmount)</td><td><strong>\(ConsoleFormat.amount(amount, schedule.currency))</strong></td></tr>")
            hidden.append("<input type=\"hidden\" name=\"amount\" value=\"\(Money(minorUnits: amount, currency: schedule.currency).decimalString)\">")
        }
        if let card {
            rows.append("<tr><th scope=\"row\">Card</th><td>\(oldCard)</td><td><strong>\(Self.masked(card))</strong> (\(card.merchantReference))</td></tr>")
            hidden.append("<input type=\"hidden\" name=\"card\" value=\"\(card.reference)\">")
        }
        let firstUse: Markup =
            card != nil && schedule.status != .pendingConfirmation
            ? "<p>The new card is checked with the gateway first (its first use for this series), as when a schedule is confirmed.</p>" : ""
        let content: Markup = """
            <p class="notice" role="alert">Change schedule <span class="mono">\(schedule.id)</span> (\(schedule.currency.code))? Steps already charged keep their amount and card.</p>
            <div class="table" role="region" aria-label="The change" tabindex="0"><table>
            <thead><tr><th scope="col"></th><th scope="col">Now</th><th scope="col">After the change</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>\(firstUse)
            <form method="post" action="/console/schedules/\(merchant.id)/\(schedule.id)/change">
            <input type="hidden" name="csrf" value="\(signed.csrf)">\(hidden)
            <input type="hidden" name="confirm" value="yes">
            <input type="hidden" name="once" value="\(OpaqueToken.make(prefix: Self.onceKeyPrefix, randomBits: 128))">
            <p><button type="submit" class="danger">Change the schedule</button> <a href="/console/schedules/\(merchant.id)/\(schedule.id)">Go back</a></p></form>
            """
        return SchedulesScreen(services: services).page(signed, title: "Confirm: change the schedule", content: content)
    }

    /// The merchant's live card with this token (when `text` is shaped like one) or merchant reference.
    private func liveCard(_ text: String, merchant: Merchant, actor: String) async throws -> SecureCard? {
        do {
            let card =
                OpaqueToken.isWellFormed(text, prefix: "sc_")
                ? try await services.cards.retrieve(reference: text, merchant: merchant, readBy: actor)
                : try await services.cards.retrieve(merchantReference: text, merchant: merchant, readBy: actor)
            return card.status == .active && card.purgedAt == nil ? card : nil
        } catch SecureCardError.notFound {
            return nil
        }
    }
}
