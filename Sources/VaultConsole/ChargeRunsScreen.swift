import Foundation
import Hummingbird
import Scheduler
import Vault

/// Charge runs: every run that charged the steps of a merchant the operator may see (cron, the
/// command line and the API), newest first, with its summary; a run's page, which reloads itself
/// while the run is running; and, for an admin, starting a run of one merchant: the first post
/// states the merchant and the as-of instant and asks to confirm, the second starts it through the
/// API's starter (one running run per merchant, `charge_run.started` under the operator). A dry
/// run's page offers "Start the run" as of the same instant, behind the same confirmation.
struct ChargeRunsScreen {
    let services: ConsoleServices

    /// Seconds between reloads of a running run's page.
    static let refreshSeconds = 5

    // MARK: - List

    /// The runs, 50 a page (``ConsolePaging``).
    func list(query: [String: String] = [:], signed: ConsoleSignedIn) async throws -> Response {
        guard let paging = ConsolePaging(query: query) else {
            return ConsoleResponses.html(
                ConsolePage.shell(current: "charge-runs", title: "Charge runs", account: signed.account, csrf: signed.csrf, content: ConsolePaging.refusal),
                status: .badRequest)
        }
        let merchants = try await services.merchants.merchants().filter { signed.account.covers(merchantID: $0.id) }
        var seen: Set<String> = []
        var fetched: [(merchant: Merchant, view: ChargeRunView)] = []
        for merchant in merchants {
            for view in try await services.chargeRuns.history.list(merchant: merchant, beforeSequence: paging.cursor, limit: ConsolePaging.pageSize + 1)
            where seen.insert(view.record.id).inserted {
                fetched.append((merchant, view))
            }
        }
        let (runs, next) = ConsolePaging.newestFirst(fetched) { $0.view.sequence }
        let rows = runs.map { run -> Markup in
            let (merchant, view) = run
            let record = view.record
            let link: Markup =
                view.scope == .merchant
                ? "<a class=\"mono\" href=\"/console/charge-runs/\(merchant.id)/\(record.id)\">\(record.id)</a>"
                : "<span class=\"mono\">\(record.id)</span>"
            let whose: Markup = view.scope == .merchant ? "\(merchant.name)" : "All merchants"
            let when = { (instant: Date) in ConsoleFormat.instant(instant, zone: merchant.zone, zoneName: merchant.zoneName) }
            return """
                <tr><td>\(link)</td><td>\(whose)</td><td>\(record.status.rawValue)\(record.dryRun ? " (dry run)" : "")</td><td>\(record.startedBy)</td>
                <td>\(when(record.asOf))</td><td>\(when(record.startedAt))</td><td>\(record.finishedAt.map(when) ?? "")</td>
                <td>\(view.summary.map(Self.brief) ?? "")</td></tr>
                """
        }
        let table: Markup =
            rows.isEmpty
            ? "<p role=\"status\">No charge run yet.</p>"
            : """
            <div class="table" role="region" aria-label="Charge runs" tabindex="0"><table>
            <thead><tr><th scope="col">Run</th><th scope="col">Merchant</th><th scope="col">Status</th><th scope="col">Started by</th>
            <th scope="col">As of</th><th scope="col">Started</th><th scope="col">Finished</th><th scope="col">Summary</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            """
        var start: Markup = ""
        if signed.account.role.allows(.administer) && !merchants.isEmpty {
            let options = Markup.joined(merchants.map { "<option value=\"\($0.id)\">\($0.name)</option>" })
            start = """
                <h2>Start a run</h2>
                <form method="post" action="/console/charge-runs/start">
                <input type="hidden" name="csrf" value="\(signed.csrf)">
                <label for="merchant">Merchant</label><select id="merchant" name="merchant">\(options)</select>
                <input type="hidden" name="mode" value="dry">
                <p><button type="submit">Start a dry run</button></p></form>
                """
        }
        return ConsoleResponses.html(
            ConsolePage.shell(
                current: "charge-runs", title: "Charge runs", account: signed.account, csrf: signed.csrf,
                content: "\(start)\(table)\(paging.links(path: "/console/charge-runs", query: query, next: next))"))
    }

    /// One line: steps due, then each outcome's count and totals in their currencies.
    static func brief(_ summary: ChargeRunSummary) -> String {
        var parts = ["\(summary.due.count) due"]
        for (outcome, totals) in summary.outcomes.sorted(by: { $0.key < $1.key }) where totals.count > 0 {
            parts.append("\(totals.count) \(outcome.replacingOccurrences(of: "_", with: " ")) \(amounts(totals))")
        }
        return parts.joined(separator: ", ")
    }

    static func amounts(_ totals: OutcomeTotals) -> String {
        let written = totals.totals.sorted { $0.key < $1.key }.map { code, minor in
            (try? Currency(code: code)).map { ConsoleFormat.amount(minor, $0) } ?? "\(minor) \(code)"
        }
        return written.isEmpty ? "" : "(\(written.joined(separator: ", ")))"
    }

    // MARK: - One run

    func detail(merchantID: String, id: String, signed: ConsoleSignedIn) async throws -> Response {
        guard signed.account.covers(merchantID: merchantID), let merchant = try await services.merchants.merchant(id: merchantID),
              let record = try await services.chargeRuns.run(id, merchant.id)
        else { return notFound(signed) }
        let when = { (instant: Date) in ConsoleFormat.instant(instant, zone: merchant.zone, zoneName: merchant.zoneName) }
        let running = record.status == .running
        var facts: [(String, Markup)] = [
            ("Merchant", "\(merchant.name)"), ("Status", "\(record.status.rawValue)"), ("Kind", record.dryRun ? "Dry run: nothing charged" : "Charging"),
            ("As of", "\(when(record.asOf))"), ("Started by", "\(record.startedBy)"), ("Started", "\(when(record.startedAt))"),
        ]
        if let finished = record.finishedAt { facts.append(("Finished", "\(when(finished))")) }
        var summaryTable: Markup = ""
        if let summary = record.decodedSummary {
            facts.append(("Steps due", "\(summary.due.count) \(Self.amounts(summary.due))"))
            let outcomes = summary.outcomes.sorted { $0.key < $1.key }.map { outcome, totals -> Markup in
                "<tr><th scope=\"row\">\(outcome.replacingOccurrences(of: "_", with: " "))</th><td>\(totals.count)</td><td>\(Self.amounts(totals))</td></tr>"
            }
            summaryTable = """
                <h2>Outcomes</h2>
                <div class="table" role="region" aria-label="Outcomes" tabindex="0"><table>
                <thead><tr><th scope="col">Outcome</th><th scope="col">Steps</th><th scope="col">Amounts</th></tr></thead><tbody>\(outcomes)</tbody></table></div>
                """
        }
        let list = Markup.joined(facts.map { "<tr><th scope=\"row\">\($0.0)</th><td>\($0.1)</td></tr>" })
        let progress: Markup = running ? "<p class=\"notice\" role=\"status\">Running: this page reloads every \(Self.refreshSeconds) seconds.</p>" : ""
        var real: Markup = ""
        if record.dryRun && !running && signed.account.role.allows(.administer) {
            real = """
                <form method="post" action="/console/charge-runs/start">
                <input type="hidden" name="csrf" value="\(signed.csrf)"><input type="hidden" name="merchant" value="\(merchant.id)">
                <input type="hidden" name="mode" value="real"><input type="hidden" name="asOf" value="\(Timestamp.string(record.asOf))">
                <p><button type="submit">Start the run</button></p></form>
                """
        }
        let content: Markup = """
            \(progress)<div class="table"><table><tbody>\(list)</tbody></table></div>\(summaryTable)\(real)
            <p><a href="/console/charge-runs">Back to charge runs</a></p>
            """
        return ConsoleResponses.html(
            ConsolePage.shell(
                current: "charge-runs", title: "Charge run \(record.id)", account: signed.account, csrf: signed.csrf, content: content,
                refreshSeconds: running ? Self.refreshSeconds : nil))
    }

    // MARK: - Start

    /// The first post (without `confirm`) states the merchant, whether it is a dry run and the
    /// as-of instant in the merchant's zone, and asks to confirm; the second starts the run.
    func start(form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let merchantID = form["merchant"], signed.account.covers(merchantID: merchantID),
              let merchant = try await services.merchants.merchant(id: merchantID)
        else { return refused(signed, "Choose a merchant you may see.", status: .unprocessableContent) }
        guard let mode = form["mode"], ["dry", "real"].contains(mode) else {
            return refused(signed, "Choose a dry run or the run.", status: .unprocessableContent)
        }
        let dryRun = mode == "dry"
        var asOf = Date()
        if let text = form["asOf"], !text.isEmpty {
            guard let parsed = Timestamp.parse(text), parsed <= Date() else {
                return refused(signed, "The as-of instant must be a past instant: steps are charged when they fall due.", status: .unprocessableContent)
            }
            asOf = parsed
        }
        let kind = dryRun ? "a dry run (nothing is charged)" : "the run (due steps are charged)"
        let asOfText = ConsoleFormat.instant(asOf, zone: merchant.zone, zoneName: merchant.zoneName)
        guard form["confirm"] == "yes" else {
            let content: Markup = """
                <p class="notice" role="alert">Start \(kind) for <strong>\(merchant.name)</strong>, charging the steps due by
                <strong>\(asOfText)</strong>?</p>
                <form method="post" action="/console/charge-runs/start">
                <input type="hidden" name="csrf" value="\(signed.csrf)"><input type="hidden" name="merchant" value="\(merchant.id)">
                <input type="hidden" name="mode" value="\(mode)"><input type="hidden" name="asOf" value="\(Timestamp.string(asOf))">
                <input type="hidden" name="confirm" value="yes">
                <p><button type="submit"\(dryRun ? "" : Markup(" class=\"danger\""))>\(dryRun ? "Start the dry run" : "Start the run")</button>
                <a href="/console/charge-runs">Cancel</a></p></form>
                """
            return ConsoleResponses.html(
                ConsolePage.shell(current: "charge-runs", title: "Confirm charge run", account: signed.account, csrf: signed.csrf, content: content))
        }
        switch try await services.chargeRuns.start(merchant, asOf, dryRun, signed.account.actor) {
        case .started(let record):
            return ConsoleResponses.redirect("/console/charge-runs/\(merchant.id)/\(record.id)")
        case .alreadyRunning(let running):
            let content: Markup = """
                <p class="notice error" role="alert">A charge run of \(merchant.name) is already running; nothing was started.</p>
                <p><a class="mono" href="/console/charge-runs/\(merchant.id)/\(running.id)">Follow \(running.id)</a></p>
                """
            return ConsoleResponses.html(
                ConsolePage.shell(current: "charge-runs", title: "Not started", account: signed.account, csrf: signed.csrf, content: content),
                status: .conflict)
        case .notAccepting:
            return refused(signed, "Charge runs cannot start now (the server is stopping); try again later.", status: .serviceUnavailable)
        }
    }

    private func refused(_ signed: ConsoleSignedIn, _ message: String, status: HTTPResponse.Status) -> Response {
        ConsoleResponses.html(
            ConsolePage.shell(
                current: "charge-runs", title: "Not started", account: signed.account, csrf: signed.csrf,
                content: "<p class=\"notice error\" role=\"alert\">\(message)</p><p><a href=\"/console/charge-runs\">Back to charge runs</a></p>"),
            status: status)
    }

    private func notFound(_ signed: ConsoleSignedIn) -> Response {
        ConsoleResponses.html(
            ConsolePage.shell(
                current: "charge-runs", title: "Not found", account: signed.account, csrf: signed.csrf,
                content: "<p class=\"notice error\" role=\"alert\">No such charge run.</p>"),
            status: .notFound)
    }
}
