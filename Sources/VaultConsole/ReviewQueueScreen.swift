import Foundation
import Hummingbird
import Payments
import Scheduler
import Vault

/// Needs review: the schedule steps and one-off transactions in review (`needs_review`) of every
/// merchant the operator may see, oldest first, with the order reference as the gateway stores it
/// (what to search for in the gateway's portal), through `ReviewQueueService`, the service behind
/// `GET /v1/review-queue`. Support and admin resolve an item, behind a confirmation, with the
/// resolutions `POST /v1/review-queue/resolve` accepts: charged (with the gateway's transaction id)
/// or not charged (a step then falls due again under the retry policy); the rules, audit events and
/// webhooks are the service's. Support and admin (the role that resolves: the API asks the same
/// key role for its look-up as for its resolution) also ask the gateway again, one item or every
/// item shown, through `ReviewQueueService.lookup` (what `POST /v1/review-queue/lookup` calls):
/// the answer is shown on the item and records nothing but a `console.review_looked_up` event.
struct ReviewQueueScreen {
    let services: ConsoleServices

    /// Items shown per merchant.
    static let pageSize = 100

    private var queue: ReviewQueueService { services.scheduling.reviewQueue }

    // MARK: - List

    func list(
        query: [String: String], signed: ConsoleSignedIn, notice: Markup = "", status: HTTPResponse.Status = .ok,
        lookups: [String: ReviewItemResult.Outcome] = [:]
    ) async throws -> Response {
        var items: [(merchant: Merchant, item: ReviewQueueItem)] = []
        for merchant in try await services.merchants.merchants() where signed.account.covers(merchantID: merchant.id) {
            for item in try await queue.list(merchant: merchant, afterSequence: nil, limit: Self.pageSize) { items.append((merchant, item)) }
        }
        items.sort { $0.item.sequence < $1.item.sequence }
        let canResolve = signed.account.role.allows(.support)
        let entries = items.map { merchant, item -> Markup in
            let when = { (instant: Date) in ConsoleFormat.instant(instant, zone: merchant.zone, zoneName: merchant.zoneName) }
            let what: Markup =
                if let scheduleID = item.scheduleID {
                    """
                    Step <span class="mono">\(item.id)</span> of schedule <a class="mono" href="/console/schedules/\(merchant.id)/\(scheduleID)">\(scheduleID)</a>
                    """
                } else {
                    "Transaction <a class=\"mono\" href=\"/console/transactions/\(merchant.id)/\(item.id)\">\(item.id)</a>"
                }
            var facts: [(String, Markup)] = [
                ("Merchant", "\(merchant.name)"), ("Type", "\(item.type.rawValue)"), ("Amount", "\(ConsoleFormat.amount(item.amount, item.currency))"),
                ("Card", "<span class=\"mono nowrap\">\(item.maskedNumber ?? "")</span>"), ("Gateway", "\(item.gateway)"),
                ("Order reference at the gateway", "<span class=\"mono\">\(item.gatewayOrderReference)</span>"), ("Why", "\(item.reason ?? "")"),
                ("In review since", "\(when(item.since))"),
            ]
            if let due = item.dueAt { facts.insert(("Due", "\(when(due))"), at: 3) }
            let list = Markup.joined(facts.map { "<div><dt>\($0.0)</dt><dd>\($0.1)</dd></div>" })
            let found = lookups[Self.lookupKey(merchant.id, item.kind, item.id)]
            let answer: Markup = found.map { "<p class=\"notice\" role=\"status\">\(Self.describe($0))</p>" } ?? ""
            let actions: Markup =
                canResolve ? "\(lookupForm(merchant: merchant, item: item, signed: signed))\(resolveForm(merchant: merchant, item: item, signed: signed, found: found))" : ""
            return "<li><h2 class=\"item-title\">\(what)</h2><dl class=\"facts\">\(list)</dl>\(answer)\(actions)</li>"
        }
        let table: Markup =
            entries.isEmpty
            ? "<p role=\"status\">Nothing waits for review.</p>"
            : "<ul class=\"queue\" aria-label=\"Items in review\">\(entries)</ul>"
        var resolved: Markup = ""
        if let id = query["resolved"], !id.isEmpty, id.count <= 64 {
            resolved = "<p class=\"notice\" role=\"status\"><span class=\"mono\">\(id)</span> was resolved.</p>"
        }
        let lookAll: Markup =
            canResolve && !items.isEmpty
            ? """
            <form method="post" action="/console/review-queue/lookup"><input type="hidden" name="csrf" value="\(signed.csrf)">
            <input type="hidden" name="all" value="yes"><p><button type="submit">Look up all shown at the gateway (\(items.count))</button></p></form>
            """
            : ""
        let content: Markup = """
            \(notice)\(resolved)<p>Steps and one-off transactions whose charge may or may not have gone through: check each against the gateway's
            records by its order reference (or look it up at the gateway from here), then resolve it.</p>\(lookAll)\(table)
            """
        return page(signed, title: "Needs review", content: content, status: status)
    }

    /// The item's look-up button.
    func lookupForm(merchant: Merchant, item: ReviewQueueItem, signed: ConsoleSignedIn) -> Markup {
        """
        <form class="resolve" method="post" action="/console/review-queue/lookup">
        <input type="hidden" name="csrf" value="\(signed.csrf)"><input type="hidden" name="merchant" value="\(merchant.id)">
        <input type="hidden" name="kind" value="\(item.kind.rawValue)"><input type="hidden" name="id" value="\(item.id)">
        <button type="submit" aria-label="Look up at the gateway: \(item.id)">Look up at the gateway</button></form>
        """
    }

    /// The item's resolution form: the outcome and, for "charged", the gateway's transaction id
    /// (filled in when a look-up found the charge approved).
    func resolveForm(merchant: Merchant, item: ReviewQueueItem, signed: ConsoleSignedIn, found: ReviewItemResult.Outcome? = nil) -> Markup {
        let prefix = "r-\(item.id)"
        var foundID = ""
        if case .found("approved", let gatewayTransactionID?)? = found { foundID = gatewayTransactionID }
        let notChargedSelected: Markup = if case .notFound? = found { " selected" } else if case .found("declined", _)? = found { " selected" } else { "" }
        return """
            <form class="resolve" method="post" action="/console/review-queue/resolve">
            <input type="hidden" name="csrf" value="\(signed.csrf)"><input type="hidden" name="merchant" value="\(merchant.id)">
            <input type="hidden" name="kind" value="\(item.kind.rawValue)"><input type="hidden" name="id" value="\(item.id)">
            <div><label for="\(prefix)-outcome">Outcome</label>
            <select id="\(prefix)-outcome" name="outcome"><option value="charged">Charged</option><option value="not_charged"\(notChargedSelected)>Not charged</option></select></div>
            <div><label for="\(prefix)-gateway">Gateway transaction id (when charged)</label>
            <input type="text" id="\(prefix)-gateway" name="gatewayTransactionId" value="\(foundID)" maxlength="64" autocomplete="off" spellcheck="false"></div>
            <button type="submit">Resolve</button></form>
            """
    }

    // MARK: - Resolve

    /// The first post states the item, its amount and the outcome and asks to confirm; the second
    /// (`confirm=yes`) resolves it through the queue's service under the operator.
    func resolve(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let merchantID = form["merchant"], signed.account.covers(merchantID: merchantID),
              let merchant = try await services.merchants.merchant(id: merchantID),
              let kind = form["kind"].flatMap(ReviewItemKind.init(rawValue:)), let id = form["id"], !id.isEmpty, id.count <= 64
        else { return try await refused("Choose an item in review of a merchant you may see.", signed, status: .unprocessableContent) }
        let gatewayID = (form["gatewayTransactionId"] ?? "").trimmingCharacters(in: .whitespaces)
        let resolution: ReviewResolution
        switch form["outcome"] {
        case "charged":
            guard !gatewayID.isEmpty else {
                return try await refused("Give the gateway's transaction id when the outcome is charged.", signed, status: .unprocessableContent)
            }
            if let problem = services.scheduling.gatewayTransactionIDProblem(gatewayID) {
                return try await refused(problem, signed, status: .unprocessableContent)
            }
            resolution = .charged(gatewayTransactionID: gatewayID)
        case "not_charged":
            guard gatewayID.isEmpty else {
                return try await refused("A gateway transaction id is only given when the outcome is charged.", signed, status: .unprocessableContent)
            }
            resolution = .notCharged
        default:
            return try await refused("The outcome is charged or not charged.", signed, status: .unprocessableContent)
        }
        guard let item = try await queue.list(merchant: merchant, afterSequence: nil, limit: Self.pageSize).first(where: { $0.kind == kind && $0.id == id })
        else { return try await refused("That item is not in review any more.", signed, status: .conflict) }
        let amount = ConsoleFormat.amount(item.amount, item.currency)
        guard form["confirm"] == "yes" else {
            let outcome: Markup =
                switch resolution {
                case .charged(let gatewayTransactionID):
                    "was <strong>charged</strong> at the gateway as transaction <span class=\"mono\">\(gatewayTransactionID)</span>"
                case .notCharged:
                    "was <strong>not charged</strong>\(kind == .step ? Markup(" (the step falls due again under the retry policy)") : "")"
                }
            let content: Markup = """
                <p class="notice" role="alert">Record that \(kind.rawValue) <span class="mono">\(item.id)</span> of \(merchant.name), \(amount) on card
                <span class="mono">\(item.maskedNumber ?? "")</span> (order reference <span class="mono">\(item.gatewayOrderReference)</span>), \(outcome)?</p>
                <form method="post" action="/console/review-queue/resolve">
                <input type="hidden" name="csrf" value="\(signed.csrf)"><input type="hidden" name="merchant" value="\(merchant.id)">
                <input type="hidden" name="kind" value="\(kind.rawValue)"><input type="hidden" name="id" value="\(item.id)">
                <input type="hidden" name="outcome" value="\(form["outcome"] ?? "")"><input type="hidden" name="gatewayTransactionId" value="\(gatewayID)">
                <input type="hidden" name="confirm" value="yes">
                <p><button type="submit" class="danger">Resolve</button> <a href="/console/review-queue">Go back</a></p></form>
                """
            return page(signed, title: "Confirm resolution", content: content)
        }
        let results = try await queue.resolve([ReviewItemResolution(kind: kind, id: id, resolution: resolution)], merchant: merchant, actor: signed.account.actor)
        switch results.first?.outcome {
        case .applied:
            return ConsoleResponses.redirect("/console/review-queue?resolved=\(id)")
        case .refused(_, let message):
            return try await refused(message, signed, status: .conflict)
        default:
            return try await refused("The item could not be resolved now; nothing was recorded. Try it again.", signed, status: .conflict)
        }
    }

    // MARK: - Look-up

    /// Asks the gateway again about one item (`merchant`, `kind`, `id`) or every item shown
    /// (`all=yes`), merchant by merchant, and shows the list with each answer on its item.
    func lookup(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        var asked: [(merchant: Merchant, items: [ReviewItemReference])] = []
        if form["all"] == "yes" {
            for merchant in try await services.merchants.merchants() where signed.account.covers(merchantID: merchant.id) {
                let items = try await queue.list(merchant: merchant, afterSequence: nil, limit: Self.pageSize).map { ReviewItemReference(kind: $0.kind, id: $0.id) }
                if !items.isEmpty { asked.append((merchant, items)) }
            }
        } else {
            guard let merchantID = form["merchant"], signed.account.covers(merchantID: merchantID),
                  let merchant = try await services.merchants.merchant(id: merchantID),
                  let kind = form["kind"].flatMap(ReviewItemKind.init(rawValue:)), let id = form["id"], !id.isEmpty, id.count <= 64
            else { return try await refused("Choose an item in review of a merchant you may see.", signed, status: .unprocessableContent) }
            asked.append((merchant, [ReviewItemReference(kind: kind, id: id)]))
        }
        var answers: [String: ReviewItemResult.Outcome] = [:]
        var lines: [Markup] = []
        for (merchant, items) in asked {
            let results = try await queue.lookup(items, merchant: merchant)
            var counts: [String: Int] = [:]
            for result in results {
                answers[Self.lookupKey(merchant.id, result.kind, result.id)] = result.outcome
                counts[Self.summary(result.outcome), default: 0] += 1
                lines.append("<li><span class=\"mono\">\(result.id)</span>: \(Self.describe(result.outcome))</li>")
            }
            var details = ["merchant": merchant.id, "items": String(results.count)]
            for (outcome, count) in counts { details[outcome] = String(count) }
            try await services.operators.record(account: signed.account, action: "console.review_looked_up", details: details)
        }
        let notice: Markup =
            lines.isEmpty
            ? "<p class=\"notice\" role=\"status\">Nothing waits for review: nothing was looked up.</p>"
            : "<div class=\"notice\" role=\"status\"><p>Asked the gateway (nothing was recorded; resolve each item with what was found):</p><ul>\(lines)</ul></div>"
        return try await list(query: [:], signed: signed, notice: notice, lookups: answers)
    }

    static func lookupKey(_ merchantID: String, _ kind: ReviewItemKind, _ id: String) -> String { "\(merchantID)/\(kind.rawValue)/\(id)" }

    /// One word per answer, for the audit event's counts.
    static func summary(_ outcome: ReviewItemResult.Outcome) -> String {
        switch outcome {
        case .found(let outcome, _): "found_\(outcome)"
        case .notFound: "not_found"
        case .unavailable: "unavailable"
        case .refused, .applied: "refused"
        }
    }

    /// What the gateway's answer means for the operator.
    static func describe(_ outcome: ReviewItemResult.Outcome) -> Markup {
        switch outcome {
        case .found("approved", let gatewayTransactionID):
            let asTransaction = gatewayTransactionID.map { (id: String) -> Markup in " as transaction <span class=\"mono\">\(id)</span>" } ?? ""
            return "<strong>Found approved</strong> at the gateway\(asTransaction): resolve it as charged."
        case .found("declined", _):
            return "<strong>Found declined</strong> at the gateway: resolve it as not charged."
        case .found(let outcome, _):
            return "<strong>Found</strong> at the gateway, ended there as \(outcome.replacingOccurrences(of: "_", with: " ")): check it in the gateway's portal."
        case .notFound:
            return "<strong>Not found</strong>: the gateway has no record of it since it was sent: resolve it as not charged."
        case .unavailable(let reason):
            return "<strong>Unavailable</strong>: the gateway could not be asked or could not search the whole window (\(reason)); try again later or check its portal."
        case .refused(_, let message):
            return "<strong>Not looked up</strong>: \(message)"
        case .applied:
            return "<strong>Not looked up</strong>."
        }
    }

    private func refused(_ message: String, _ signed: ConsoleSignedIn, status: HTTPResponse.Status) async throws -> Response {
        try await list(query: [:], signed: signed, notice: "<p class=\"notice error\" role=\"alert\">\(message)</p>", status: status)
    }

    func page(_ signed: ConsoleSignedIn, title: String, content: Markup, status: HTTPResponse.Status = .ok) -> Response {
        ConsoleResponses.html(
            ConsolePage.shell(current: "review-queue", title: title, account: signed.account, csrf: signed.csrf, content: content), status: status)
    }
}
