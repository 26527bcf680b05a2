import Foundation
import Hummingbird
import Scheduler
import Vault

/// The plan builder (support and admin): a form for a new schedule on a card. "Preview" expands it
/// through `ScheduleService.preview`, the call behind `POST /v1/schedules/preview` (nothing is
/// saved), and draws the steps as month calendars with a list; a refusal is shown next to its field
/// in the API's own words. "Confirm" creates the schedule through `ScheduleService.create` with the
/// fields that were previewed. The confirm form carries a one-time key claimed through the API's
/// idempotency service, so a double submit (or a reload) creates one schedule and answers both with
/// it; a key sent again with other fields is refused.
struct PlanBuilderScreen {
    let services: ConsoleServices

    /// The form's fields, in the order of the form (also the order of the one-time key's fingerprint).
    static let fieldNames = [
        "merchant", "secureCardReference", "merchantReference", "amount", "currency", "description", "type", "startDate", "day", "month", "dates",
        "endType", "endDate", "endCount", "hour", "minute", "timeZone",
    ]
    /// Steps listed under the calendars; a longer plan says how many more there are.
    static let listedSteps = 100
    static let planTypes = [
        ("monthly", "Monthly"), ("weekly", "Weekly"), ("quarterly", "Quarterly"), ("annual", "Annual"), ("arbitraryDates", "On the dates listed"),
        ("delayedOnce", "Once, on the start date"),
    ]
    static let endTypes = [("count", "After a number of steps"), ("date", "On an end date"), ("never", "Never")]

    /// What was typed: field name → text.
    typealias Values = [String: String]
    /// Refusals: field name (as the form names it, or "" for the form as a whole) → message.
    typealias Problems = [String: String]

    private var schedules: ScheduleService { services.scheduling.schedules }

    // MARK: - Pages

    /// The empty form: today's date in the merchant's zone, monthly, twelve steps.
    func blank(signed: ConsoleSignedIn) async throws -> Response {
        let merchants = try await visibleMerchants(signed)
        var values: Values = ["currency": "USD", "type": "monthly", "endType": "count", "endCount": "12"]
        if let merchant = merchants.first {
            values["merchant"] = merchant.id
            values["timeZone"] = merchant.zoneName
            let today = CivilDate.today(in: merchant.zone)
            values["startDate"] = today.iso
            values["day"] = String(today.day)
        }
        return page(signed, merchants: merchants, values: values, problems: [:], preview: nil)
    }

    /// The form again with the previewed steps, or with the refusal next to its field (422).
    func preview(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        let merchants = try await visibleMerchants(signed)
        let values = Self.values(form)
        let built = request(values, merchants: merchants)
        guard let (merchant, request) = built.request else {
            return page(signed, merchants: merchants, values: values, problems: built.problems, preview: nil, status: .unprocessableContent)
        }
        do {
            let view = try await schedules.preview(request, merchant: merchant)
            return page(signed, merchants: merchants, values: values, problems: [:], preview: (merchant, view))
        } catch let problem as any RefusedField {
            return page(signed, merchants: merchants, values: values, problems: problem.problems, preview: nil, status: .unprocessableContent)
        }
    }

    /// Creates the schedule previewed, once per one-time key.
    func create(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        let merchants = try await visibleMerchants(signed)
        let values = Self.values(form)
        let built = request(values, merchants: merchants)
        guard let (merchant, request) = built.request else {
            return page(signed, merchants: merchants, values: values, problems: built.problems, preview: nil, status: .unprocessableContent)
        }
        guard let key = form["once"], OpaqueToken.isWellFormed(key, prefix: Self.keyPrefix, randomBits: 128) else {
            return page(
                signed, merchants: merchants, values: values, problems: ["": "This confirmation is not valid: preview the plan again and confirm it."],
                preview: nil, status: .unprocessableContent)
        }
        let idempotency = services.scheduling.idempotency
        let claim: IdempotencyService.Claim
        switch try await idempotency.claim(merchantID: merchant.id, key: "console-\(key)", request: Self.fingerprint(values), transactionID: "") {
        case .started(let started), .takenOver(let started):
            claim = started
        case .replay(_, let body):
            let id = String(decoding: body.copyToArray(), as: UTF8.self)
            return ConsoleResponses.redirect("/console/schedules/\(merchant.id)/\(id)")
        case .mismatch:
            return page(
                signed, merchants: merchants, values: values,
                problems: ["": "This confirmation was already used for another plan: preview the plan again and confirm it."], preview: nil,
                status: .unprocessableContent)
        case .inProgress, .responseDestroyed:
            return page(
                signed, merchants: merchants, values: values,
                problems: ["": "This schedule is being created by an earlier submit of the same form: look for it in the schedules list."],
                preview: nil, status: .conflict)
        }
        let view: ScheduleView
        do {
            view = try await schedules.create(request, merchant: merchant, actor: signed.account.actor)
        } catch {
            try? await idempotency.release(claim)
            guard let problem = error as? any RefusedField else { throw error }
            return page(signed, merchants: merchants, values: values, problems: problem.problems, preview: nil, status: .unprocessableContent)
        }
        try await idempotency.complete(claim, status: 201, body: Array(view.schedule.id.utf8))
        return ConsoleResponses.redirect("/console/schedules/\(merchant.id)/\(view.schedule.id)")
    }

    /// The prefix of the confirm form's one-time keys.
    static let keyPrefix = "once_"

    // MARK: - The request

    /// The form's fields as typed (absent ones empty).
    static func values(_ form: ConsoleForm) -> Values {
        var values: Values = [:]
        for name in fieldNames { values[name] = form[name] ?? "" }
        return values
    }

    /// What the one-time key is claimed with: every field, so the key cannot create another plan.
    static func fingerprint(_ values: Values) -> [UInt8] {
        Array((["console/schedules/create"] + fieldNames.map { "\($0)=\(values[$0] ?? "")" }).joined(separator: "\n").utf8)
    }

    /// The domain's request for `values`, or the fields the console itself could not read (a
    /// number that is not one, an amount with too many decimals, a merchant not visible).
    func request(_ values: Values, merchants: [Merchant]) -> (request: (Merchant, NewSchedule)?, problems: Problems) {
        var problems: Problems = [:]
        let text = { (name: String) -> String? in
            let trimmed = (values[name] ?? "").trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed
        }
        let merchant = merchants.first { $0.id == values["merchant"] }
        if merchant == nil { problems["merchant"] = "Choose a merchant you may see." }
        var numbers: [String: Int] = [:]
        for name in ["day", "month", "endCount", "hour", "minute"] {
            guard let typed = text(name) else { continue }
            if let number = Int(typed) { numbers[name] = number } else { problems[name] = "Give a whole number." }
        }
        var amount: Int64?
        if let typed = text("amount") {
            let currency = (try? Currency(code: text("currency") ?? "")) ?? (try? Currency(code: "USD"))
            if let currency, let minor = ConsoleFormat.minorUnits(typed: typed, currency) {
                amount = minor
            } else {
                let code = currency?.code ?? "the currency"
                problems["amount"] = "Give the amount per step in \(code) with at most \(currency?.minorUnitExponent ?? 2) decimals, e.g. 12.50."
            }
        }
        let dates = (values["dates"] ?? "").split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
        guard problems.isEmpty, let merchant else { return (nil, problems) }
        let plan = PlanTerms(
            type: text("type"), startDate: text("startDate"), endType: text("endType"), endDate: text("endDate"), endCount: numbers["endCount"],
            month: numbers["month"], day: numbers["day"], hour: numbers["hour"], minute: numbers["minute"], dates: dates.isEmpty ? nil : dates,
            timeZone: text("timeZone"))
        let request = NewSchedule(
            secureCardReference: text("secureCardReference"), merchantReference: text("merchantReference"), amount: amount, currency: text("currency"),
            description: text("description"), plan: plan)
        return ((merchant, request), [:])
    }

    func visibleMerchants(_ signed: ConsoleSignedIn) async throws -> [Merchant] {
        try await services.merchants.merchants().filter { signed.account.covers(merchantID: $0.id) }
    }

    // MARK: - Rendering

    func page(
        _ signed: ConsoleSignedIn, merchants: [Merchant], values: Values, problems: Problems, preview: (Merchant, ScheduleView)?,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        // A refusal naming a field the form does not have (or `dates[2]`) is shown with the nearest one.
        var shown: Problems = [:]
        for (named, message) in problems {
            let base = String(named.prefix { $0 != "[" })
            let key = Self.fieldNames.contains(base) ? base : ""
            shown[key] = shown[key].map { "\($0) \(message)" } ?? message
        }
        let general: Markup = shown[""].map { "<p class=\"notice error\" role=\"alert\">\($0)</p>" } ?? ""
        let summary: Markup =
            shown.isEmpty ? "" : "<p class=\"notice error\" role=\"alert\">The plan was not accepted: see the message next to each field.</p>"
        let merchantOptions = Markup.joined(
            merchants.map { merchant -> Markup in
                let selected: Markup = merchant.id == values["merchant"] ? " selected" : ""
                return "<option value=\"\(merchant.id)\"\(selected)>\(merchant.name)</option>"
            })
        let field = { (name: String, label: String, control: (Markup) -> Markup, hint: String?) -> Markup in
            let error: Markup = shown[name].map { "<p class=\"field-error\" id=\"\(name)-error\">\($0)</p>" } ?? ""
            let describedBy: Markup = shown[name] == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"\(name)-error\""
            let hintText: Markup = hint.map { "<span class=\"hint\">\($0)</span>" } ?? ""
            return "<div class=\"field\"><label for=\"\(name)\">\(label)\(hintText)</label>\(control(describedBy))\(error)</div>"
        }
        let input = { (name: String, type: String, extra: Markup) -> (Markup) -> Markup in
            { aria in "<input type=\"\(type)\" id=\"\(name)\" name=\"\(name)\" value=\"\(values[name] ?? "")\"\(extra)\(aria)>" }
        }
        let select = { (name: String, options: [(String, String)]) -> (Markup) -> Markup in
            { aria in
                let list = Markup.joined(
                    options.map { value, label -> Markup in
                        let selected: Markup = value == values[name] ? " selected" : ""
                        return "<option value=\"\(value)\"\(selected)>\(label)</option>"
                    })
                return "<select id=\"\(name)\" name=\"\(name)\"\(aria)>\(list)</select>"
            }
        }
        let currencies = Currency.all.map { ($0.code, $0.code) }.sorted { $0.0 < $1.0 }
        let number = " inputmode=\"numeric\" autocomplete=\"off\""
        let fields: [Markup] = [
            field("merchant", "Merchant", { aria in "<select id=\"merchant\" name=\"merchant\"\(aria)>\(merchantOptions)</select>" }, nil),
            field("secureCardReference", "Card token", input("secureCardReference", "text", " autocomplete=\"off\" spellcheck=\"false\""), "sc_…"),
            field("merchantReference", "or the merchant's card reference", input("merchantReference", "text", " autocomplete=\"off\" spellcheck=\"false\""), nil),
            field("amount", "Amount per step", input("amount", "text", " inputmode=\"decimal\" autocomplete=\"off\" required"), "e.g. 12.50"),
            field("currency", "Currency", select("currency", currencies), nil),
            field("description", "Description", input("description", "text", " maxlength=\"255\" autocomplete=\"off\""), "optional"),
            field("type", "Plan", select("type", Self.planTypes), nil),
            field("startDate", "Start date", input("startDate", "date", ""), "first day a step may fall on"),
            field("day", "Day", input("day", "text", Markup(stringLiteral: number)), "day of the month 1-32 (32: the last), or weekday 0-7 for weekly (0 and 7: Sunday)"),
            field("month", "Month", input("month", "text", Markup(stringLiteral: number)), "1-12, quarterly and annual plans"),
            field(
                "dates", "Dates",
                { aria in "<textarea id=\"dates\" name=\"dates\" rows=\"3\"\(aria)>\(values["dates"] ?? "")</textarea>" },
                "for a plan on the dates listed: yyyy-mm-dd, one a line"),
            field("endType", "Ends", select("endType", Self.endTypes), nil),
            field("endCount", "Number of steps", input("endCount", "text", Markup(stringLiteral: number)), "when it ends after a number of steps"),
            field("endDate", "End date", input("endDate", "date", ""), "when it ends on a date"),
            field("hour", "Hour", input("hour", "text", Markup(stringLiteral: number)), "0-23, optional"),
            field("minute", "Minute", input("minute", "text", Markup(stringLiteral: number)), "0-59, optional"),
            field("timeZone", "Time zone", input("timeZone", "text", " autocomplete=\"off\" spellcheck=\"false\""), "e.g. Europe/London"),
        ]
        var previewed: Markup = ""
        if let (merchant, view) = preview {
            previewed = previewMarkup(merchant: merchant, view: view, values: values, signed: signed)
        }
        let content: Markup = """
            \(summary)\(general)
            <form class="builder" method="post" action="/console/schedules/preview" novalidate>
            <input type="hidden" name="csrf" value="\(signed.csrf)">
            <div class="fields">\(fields)</div>
            <p><button type="submit">Preview</button> <a href="/console/schedules">Back to schedules</a></p></form>
            \(previewed)
            """
        return ConsoleResponses.html(
            ConsolePage.shell(current: "schedules", title: "New schedule", account: signed.account, csrf: signed.csrf, content: content), status: status)
    }

    /// The steps as calendars and a list, the warnings, and the confirm form carrying the fields
    /// previewed and a fresh one-time key.
    func previewMarkup(merchant: Merchant, view: ScheduleView, values: Values, signed: ConsoleSignedIn) -> Markup {
        let when = { (instant: Date) in ConsoleFormat.instant(instant, zone: merchant.zone, zoneName: merchant.zoneName) }
        let steps = view.steps
        let items = steps.prefix(Self.listedSteps).map { step -> Markup in
            "<li>\(step.date.iso): \(ConsoleFormat.amount(step.amount, step.currency)), due \(when(step.dueAt))</li>"
        }
        let more: Markup = steps.count > Self.listedSteps ? "<p>… and \(steps.count - Self.listedSteps) more steps.</p>" : ""
        let warnings = view.warnings.map { warning -> Markup in "<p class=\"notice\">\(warning)</p>" }
        let total = steps.reduce(Int64(0)) { $0 + $1.amount }
        let months: Markup =
            steps.count > 0 && steps.last!.date >= steps.first!.date.adding(months: PlanCalendar.maximumMonths)
            ? "<p>The calendars show the first \(PlanCalendar.maximumMonths) months; the list shows every step.</p>" : ""
        let hidden = Markup.joined(Self.fieldNames.map { "<input type=\"hidden\" name=\"\($0)\" value=\"\(values[$0] ?? "")\">" })
        let totalText: Markup =
            view.schedule.plan.endType == "never" ? "" : " totalling <strong>\(ConsoleFormat.amount(total, view.schedule.currency))</strong>"
        return """
            <section aria-labelledby="preview-title"><h2 id="preview-title">Preview</h2>
            <p role="status"><strong>\(steps.count)</strong> step\(steps.count == 1 ? "" : "s") of \(ConsoleFormat.amount(view.schedule.amount, view.schedule.currency))\(totalText)
            on card <span class="mono">\(view.schedule.secureCardReference)</span>; nothing is saved until you confirm.</p>
            \(warnings)\(months)\(PlanCalendar.months(steps))
            <h3>Steps</h3><ol class="steps">\(items)</ol>\(more)
            <form method="post" action="/console/schedules/create">
            <input type="hidden" name="csrf" value="\(signed.csrf)">\(hidden)
            <input type="hidden" name="once" value="\(OpaqueToken.make(prefix: Self.keyPrefix, randomBits: 128))">
            <p><button type="submit" class="danger">Confirm and create the schedule</button></p>
            <p class="hint">The schedule waits for the customer's confirmation before anything is charged.</p></form></section>
            """
    }
}

/// A refusal of the schedule service that names a form field: a rule the request breaks, in the
/// API's own words (`ScheduleError.invalid`, `PlanValidationError`).
protocol RefusedField: Error {
    var problems: [String: String] { get }
}

extension PlanValidationError: RefusedField {
    var problems: [String: String] { [field: message] }
}

extension ScheduleError: RefusedField {
    var problems: [String: String] {
        switch self {
        case .invalid(let field, _, let message): [field: message]
        default: ["": "The schedule could not be created: \(self)."]
        }
    }
}
