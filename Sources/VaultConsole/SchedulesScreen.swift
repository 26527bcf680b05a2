import Foundation
import Hummingbird
import Payments
import Scheduler
import Vault

/// Schedules: every schedule of the merchants the operator may see, filtered by status, a page at a
/// time; a schedule's page with its plan, card (masked), amount and the timeline of its steps with
/// every charge attempt; and its lifecycle through the API's `ScheduleService` (record the
/// customer's confirmation, pause, resume, cancel, skip a step) and its change
/// (``ScheduleChangeScreen``), each behind a confirmation page that states what will change. A form
/// is shown only to a role its ``ConsoleAction`` allows, and its post is refused to any other.
struct SchedulesScreen {
    let services: ConsoleServices

    static let pageSize = 25

    private var schedules: ScheduleService { services.scheduling.schedules }

    // MARK: - List

    /// The schedules after the sequence `after`, oldest first, of every merchant the operator may see.
    func list(query: [String: String], signed: ConsoleSignedIn) async throws -> Response {
        var status: ScheduleStatus?
        if let text = query["status"], !text.isEmpty {
            guard let value = ScheduleStatus(rawValue: text) else {
                return page(signed, title: "Schedules", content: "<p class=\"notice error\" role=\"alert\">That is not a schedule status.</p>", status: .badRequest)
            }
            status = value
        }
        var after: Int64?
        if let text = query["after"], !text.isEmpty {
            guard let value = Int64(text), value >= 0 else {
                return page(signed, title: "Schedules", content: "<p class=\"notice error\" role=\"alert\">That is not a page of this list.</p>", status: .badRequest)
            }
            after = value
        }
        var found: [(merchant: Merchant, schedule: Schedule)] = []
        for merchant in try await services.merchants.merchants() where signed.account.covers(merchantID: merchant.id) {
            for schedule in try await schedules.list(merchant: merchant, status: status, afterSequence: after, limit: Self.pageSize + 1) {
                found.append((merchant, schedule))
            }
        }
        found.sort { $0.schedule.sequence < $1.schedule.sequence }
        let more = found.count > Self.pageSize
        found = Array(found.prefix(Self.pageSize))
        let rows = found.map { merchant, schedule -> Markup in
            """
            <tr><td class="nowrap"><a class="mono" href="/console/schedules/\(merchant.id)/\(schedule.id)">\(schedule.id)</a></td><td>\(merchant.name)</td>
            <td>\(schedule.status.rawValue)</td><td>\(Self.planSummary(schedule.plan))</td>
            <td class="number">\(ConsoleFormat.amount(schedule.amount, schedule.currency))</td><td>\(schedule.description ?? "")</td>
            <td>\(ConsoleFormat.instant(schedule.createdAt, zone: merchant.zone, zoneName: merchant.zoneName))</td></tr>
            """
        }
        let options = [Markup("<option value=\"\">Any</option>")] + ScheduleStatus.allCases.map { option in
            let selected: Markup = option == status ? " selected" : ""
            return "<option value=\"\(option.rawValue)\"\(selected)>\(option.rawValue.replacingOccurrences(of: "_", with: " "))</option>"
        }
        let table: Markup =
            rows.isEmpty
            ? "<p role=\"status\">No schedule matches.</p>"
            : """
            <div class="table" role="region" aria-label="Schedules found" tabindex="0"><table>
            <thead><tr><th scope="col">Id</th><th scope="col">Merchant</th><th scope="col">Status</th><th scope="col">Plan</th>
            <th scope="col">Amount</th><th scope="col">Description</th><th scope="col">Created</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            """
        var paging: [Markup] = []
        if after != nil { paging.append("<a href=\"/console/schedules?status=\(status?.rawValue ?? "")\">First page</a>") }
        if more, let last = found.last {
            paging.append("<a href=\"/console/schedules?status=\(status?.rawValue ?? "")&amp;after=\(String(last.schedule.sequence))\" rel=\"next\">Next page</a>")
        }
        let pager: Markup = paging.isEmpty ? "" : "<nav class=\"pager\" aria-label=\"Pages\"><p>\(Markup.joined(paging, separator: " · "))</p></nav>"
        let builder: Markup =
            signed.may(.createSchedule) ? "<p><a class=\"button\" href=\"/console/schedules/new\">New schedule</a> <a href=\"/console/review-queue\">Needs review</a></p>"
            : "<p><a href=\"/console/review-queue\">Needs review</a></p>"
        let content: Markup = """
            \(builder)
            <form class="search" method="get" action="/console/schedules">
            <div><label for="status">Status</label><select id="status" name="status">\(options)</select></div>
            <button type="submit">Show</button></form>
            \(table)\(pager)
            """
        return page(signed, title: "Schedules", content: content)
    }

    /// `monthly on day 15 from 2026-12-15, 12 steps, 09:00 Europe/London`: a plan in one line.
    static func planSummary(_ plan: PlanTerms) -> String {
        var parts: [String] = [plan.type ?? "?"]
        switch plan.type {
        case "weekly": if let day = plan.day { parts.append("on weekday \(day)") }
        case "monthly": if let day = plan.day { parts.append("on day \(day)") }
        case "quarterly", "annual":
            if let day = plan.day { parts.append("on day \(day)") }
            if let month = plan.month { parts.append("of month \(month)") }
        case "arbitraryDates": parts.append("\(plan.dates?.count ?? 0) dates")
        default: break
        }
        if let start = plan.startDate { parts.append("from \(start)") }
        var text = parts.joined(separator: " ")
        switch plan.endType {
        case "date": text += ", until \(plan.endDate ?? "?")"
        case "count": text += ", \(plan.endCount ?? 0) steps"
        case "never": text += ", no end"
        default: break
        }
        if let hour = plan.hour {
            text += ", " + String(format: "%02d:%02d", hour, plan.minute ?? 0)
        }
        if let zone = plan.timeZone { text += " \(zone)" }
        return text
    }

    // MARK: - Detail

    /// The merchant and schedule of a path, when the operator may see them.
    func find(merchantID: String, id: String, signed: ConsoleSignedIn) async throws -> (Merchant, ScheduleView)? {
        guard signed.account.covers(merchantID: merchantID), let merchant = try await services.merchants.merchant(id: merchantID),
              !id.isEmpty, id.count <= 64
        else { return nil }
        do {
            return (merchant, try await schedules.get(id: id, merchant: merchant))
        } catch ScheduleError.notFound {
            return nil
        }
    }

    func detail(merchantID: String, id: String, signed: ConsoleSignedIn, notice: Markup = "", status: HTTPResponse.Status = .ok) async throws
        -> Response
    {
        guard let (merchant, view) = try await find(merchantID: merchantID, id: id, signed: signed) else { return notFound(signed) }
        let schedule = view.schedule
        let when = { (instant: Date) in ConsoleFormat.instant(instant, zone: merchant.zone, zoneName: merchant.zoneName) }
        var card: Markup = "<span class=\"mono\">\(schedule.secureCardReference)</span>"
        if let opened = try? await services.cards.retrieve(reference: schedule.secureCardReference, merchant: merchant, readBy: signed.account.actor) {
            card = """
                <span class="mono">\(opened.maskedNumber)</span> \(opened.cardType.rawValue), expires \(opened.expiry.description)
                (<a class="mono" href="/console/cards/\(merchant.id)/\(opened.reference)">\(opened.merchantReference)</a>)
                """
        }
        var facts: [(String, Markup)] = [
            ("Merchant", "\(merchant.name)"), ("Status", "\(schedule.status.rawValue)"), ("Plan", "\(Self.planSummary(schedule.plan))"),
            ("Amount per step", "\(ConsoleFormat.amount(schedule.amount, schedule.currency))"), ("Card", card),
            ("Description", "\(schedule.description ?? "")"), ("Created", "\(when(schedule.createdAt))"),
        ]
        if let confirmed = schedule.confirmedAt { facts.append(("Confirmed", "\(when(confirmed))")) }
        if let expires = schedule.expiresAt, schedule.status == .pendingConfirmation { facts.append(("Expires unconfirmed", "\(when(expires))")) }
        if let paused = schedule.pausedAt { facts.append(("Paused", "\(when(paused))")) }
        let list = Markup.joined(facts.map { "<tr><th scope=\"row\">\($0.0)</th><td>\($0.1)</td></tr>" })
        var actions = lifecycleForms(merchant: merchant, schedule: schedule, signed: signed)
        if signed.may(.changeSchedule) { actions = Markup.joined([actions, ScheduleChangeScreen.form(merchant: merchant, schedule: schedule, csrf: signed.csrf)]) }
        let content: Markup = """
            \(notice)<div class="table"><table><tbody>\(list)</tbody></table></div>\(actions)
            <h2>Steps</h2>\(try await timeline(merchant: merchant, view: view, signed: signed))
            <p><a href="/console/schedules">Back to schedules</a></p>
            """
        return page(signed, title: "Schedule \(schedule.id)", content: content, status: status)
    }

    /// The lifecycle buttons the schedule's status allows and the operator's role may use; each posts
    /// to its confirmation.
    func lifecycleForms(merchant: Merchant, schedule: Schedule, signed: ConsoleSignedIn) -> Markup {
        var actions: [(ConsoleAction, String)] = []
        if schedule.status == .pendingConfirmation { actions.append((.confirmSchedule, "Record the customer's confirmation")) }
        if schedule.status == .active || schedule.status == .pastDue { actions.append((.pauseSchedule, "Pause")) }
        if schedule.status == .paused { actions.append((.resumeSchedule, "Resume")) }
        if schedule.status.isOpen { actions.append((.cancelSchedule, "Cancel the schedule")) }
        actions = actions.filter { signed.may($0.0) }
        guard !actions.isEmpty else { return "" }
        let forms = actions.map { action, label -> Markup in
            """
            <form method="post" action="/console/schedules/\(merchant.id)/\(schedule.id)/\(action.rawValue)">
            <input type="hidden" name="csrf" value="\(signed.csrf)"><button type="submit"\(action == .cancelSchedule ? Markup(" class=\"danger\"") : "")>\(label)</button></form>
            """
        }
        return "<h2>Actions</h2><div class=\"actions\">\(forms)</div>"
    }

    /// Each step in plan order with its charge attempts (every transaction of the step, oldest
    /// first): status, the gateway's answer and when, in the merchant's zone; a future scheduled
    /// step of an open schedule has a "Skip" button for a role that may skip (admin).
    func timeline(merchant: Merchant, view: ScheduleView, signed: ConsoleSignedIn) async throws -> Markup {
        guard !view.steps.isEmpty else { return "<p>No step.</p>" }
        var attempts: [String: [Transaction]] = [:]
        var before: Int64?
        while true {
            let page = try await services.transactions.list(
                merchant: merchant, filter: TransactionFilter(scheduleID: view.schedule.id), beforeSequence: before, limit: 500)
            for transaction in page { if let stepID = transaction.stepID { attempts[stepID, default: []].append(transaction) } }
            guard page.count == 500, let last = page.last else { break }
            before = last.sequence
        }
        let when = { (instant: Date) in ConsoleFormat.instant(instant, zone: merchant.zone, zoneName: merchant.zoneName) }
        let now = Date()
        let canSkip = signed.may(.skipStep) && view.schedule.status.isOpen
        let items = view.steps.map { step -> Markup in
            let tried = (attempts[step.id] ?? []).sorted { $0.sequence < $1.sequence }
            let rows = tried.map { transaction -> Markup in
                var answer: [String] = []
                if let code = transaction.responseCode { answer.append(code) }
                if let text = transaction.responseText { answer.append(text) }
                if let decline = transaction.declineCode { answer.append("decline \(decline)") }
                if let error = transaction.errorCode { answer.append(error) }
                if let auth = transaction.authCode { answer.append("authorization \(auth)") }
                return """
                    <li><a class="mono" href="/console/transactions/\(merchant.id)/\(transaction.id)">\(transaction.id)</a>
                    attempt \(transaction.attempt ?? 0): <strong>\(transaction.status.rawValue)</strong>\(answer.isEmpty ? "" : " · \(answer.joined(separator: " · "))")
                    · \(when(transaction.createdAt))</li>
                    """
            }
            let attemptList: Markup = rows.isEmpty ? "" : "<ol class=\"attempts\">\(rows)</ol>"
            var skip: Markup = ""
            if canSkip && step.status == .scheduled && step.dueAt > now {
                skip = """
                    <form method="post" action="/console/schedules/\(merchant.id)/\(view.schedule.id)/steps/\(step.id)/skip">
                    <input type="hidden" name="csrf" value="\(signed.csrf)"><button type="submit">Skip step \(step.sequence)</button></form>
                    """
            }
            let retry: Markup = step.nextAttemptAt.map { " · next attempt \(when($0))" } ?? ""
            return """
                <li class="step step-\(step.status.rawValue)"><p><strong>Step \(step.sequence)</strong> · \(step.date.iso) · due \(when(step.dueAt))
                · \(ConsoleFormat.amount(step.amount, step.currency)) · <strong>\(step.status.rawValue.replacingOccurrences(of: "_", with: " "))</strong>
                · \(step.attempts) attempt\(step.attempts == 1 ? "" : "s")\(retry)</p>\(attemptList)\(skip)</li>
                """
        }
        return "<ol class=\"timeline\" aria-label=\"Steps and their attempts\">\(items)</ol>"
    }

    // MARK: - Lifecycle

    /// A lifecycle action of the schedule: the first post states what will change and asks to
    /// confirm; the second (`confirm=yes`) acts through `ScheduleService` under the operator.
    func act(_ action: String, merchantID: String, id: String, form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let (merchant, view) = try await find(merchantID: merchantID, id: id, signed: signed) else { return notFound(signed) }
        let schedule = view.schedule
        let amount = ConsoleFormat.amount(schedule.amount, schedule.currency)
        let question: Markup
        let button: String
        switch action {
        case "confirm":
            question = "Record that the customer confirmed schedule <span class=\"mono\">\(schedule.id)</span>? Its steps of \(amount) will then be charged when due."
            button = "Confirm the schedule"
        case "pause":
            question = "Pause schedule <span class=\"mono\">\(schedule.id)</span>? Nothing is charged while it is paused."
            button = "Pause the schedule"
        case "resume":
            question = """
                Resume schedule <span class="mono">\(schedule.id)</span>? Its steps of \(amount) are charged again when due; steps that fell due while
                it was paused are skipped unless you tick the box.
                """
            button = "Resume the schedule"
        case "cancel":
            question = "Cancel schedule <span class=\"mono\">\(schedule.id)</span>? No step of it is charged any more; this cannot be undone."
            button = "Cancel the schedule"
        default:
            return notFound(signed)
        }
        guard form["confirm"] == "yes" else {
            let catchUp: Markup =
                action == "resume"
                ? "<p><input type=\"checkbox\" id=\"catchUp\" name=\"catchUp\" value=\"yes\"> <label class=\"inline\" for=\"catchUp\">Charge the steps missed while paused</label></p>"
                : ""
            let content: Markup = """
                <p class="notice" role="alert">\(question)</p>
                <form method="post" action="/console/schedules/\(merchant.id)/\(schedule.id)/\(action)">
                <input type="hidden" name="csrf" value="\(signed.csrf)"><input type="hidden" name="confirm" value="yes">\(catchUp)
                <p><button type="submit" class="danger">\(button)</button> <a href="/console/schedules/\(merchant.id)/\(schedule.id)">Go back</a></p></form>
                """
            return page(signed, title: "Confirm: \(button.lowercased())", content: content)
        }
        let actor = signed.account.actor
        do {
            switch action {
            case "confirm": _ = try await schedules.confirm(id: schedule.id, merchant: merchant, actor: actor)
            case "pause": _ = try await schedules.pause(id: schedule.id, merchant: merchant, actor: actor)
            case "resume": _ = try await schedules.resume(id: schedule.id, catchUp: form["catchUp"] == "yes", merchant: merchant, actor: actor)
            default: _ = try await schedules.cancel(id: schedule.id, merchant: merchant, actor: actor)
            }
        } catch let error as ScheduleError {
            return try await refused(error, merchant: merchant, id: schedule.id, signed: signed)
        }
        return ConsoleResponses.redirect("/console/schedules/\(merchant.id)/\(schedule.id)")
    }

    /// Skips one future step, after a confirmation naming its date and amount.
    func skip(merchantID: String, id: String, stepID: String, form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let (merchant, view) = try await find(merchantID: merchantID, id: id, signed: signed),
              let step = view.steps.first(where: { $0.id == stepID })
        else { return notFound(signed) }
        guard form["confirm"] == "yes" else {
            let content: Markup = """
                <p class="notice" role="alert">Skip step \(step.sequence) of schedule <span class="mono">\(view.schedule.id)</span>, due \(step.date.iso)
                for <strong>\(ConsoleFormat.amount(step.amount, step.currency))</strong>? It will not be charged.</p>
                <form method="post" action="/console/schedules/\(merchant.id)/\(view.schedule.id)/steps/\(step.id)/skip">
                <input type="hidden" name="csrf" value="\(signed.csrf)"><input type="hidden" name="confirm" value="yes">
                <p><button type="submit" class="danger">Skip the step</button> <a href="/console/schedules/\(merchant.id)/\(view.schedule.id)">Go back</a></p></form>
                """
            return page(signed, title: "Confirm: skip a step", content: content)
        }
        do {
            _ = try await schedules.skip(id: view.schedule.id, stepID: step.id, merchant: merchant, actor: signed.account.actor)
        } catch let error as ScheduleError {
            return try await refused(error, merchant: merchant, id: view.schedule.id, signed: signed)
        }
        return ConsoleResponses.redirect("/console/schedules/\(merchant.id)/\(view.schedule.id)")
    }

    /// The schedule's page with why the service refused (409 for a status conflict, 422 otherwise).
    func refused(_ error: ScheduleError, merchant: Merchant, id: String, signed: ConsoleSignedIn) async throws -> Response {
        let (message, status): (String, HTTPResponse.Status) =
            switch error {
            case .invalid(_, _, let message): (message, .unprocessableContent)
            case .notFound(let what): ("No such \(what).", .notFound)
            case .wrongStatus(let current, let operation): ("The schedule is \(current.rawValue); \(operation) is not allowed now.", .conflict)
            case .stepNotSkippable(let status): ("Only a future scheduled step can be skipped; this one is \(status.rawValue).", .conflict)
            case .stepChanged: ("A charge run is charging this step; nothing was changed. Try again once the run has settled it.", .conflict)
            case .storedCredentialMissing:
                ("The card has no customer-initiated first use on file with the gateway and none could be made: register the card again with the customer present, then confirm.",
                 .conflict)
            case .integrityFailed: ("This schedule's stored record failed its integrity check; it is not changed and never charged.", .conflict)
            }
        return try await detail(
            merchantID: merchant.id, id: id, signed: signed, notice: "<p class=\"notice error\" role=\"alert\">\(message)</p>", status: status)
    }

    // MARK: - Pages

    func page(_ signed: ConsoleSignedIn, title: String, content: Markup, status: HTTPResponse.Status = .ok) -> Response {
        ConsoleResponses.html(
            ConsolePage.shell(current: "schedules", title: title, account: signed.account, csrf: signed.csrf, content: content), status: status)
    }

    func notFound(_ signed: ConsoleSignedIn) -> Response {
        page(signed, title: "Not found", content: "<p class=\"notice error\" role=\"alert\">No such schedule.</p>", status: .notFound)
    }
}
