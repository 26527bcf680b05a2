import Foundation
import Hummingbird
import Vault

/// Webhooks: the deliveries of every merchant the operator may see, newest first, with their
/// status, attempts, last error and next attempt, filtered by status, 50 a page; and "Resend" (support and
/// admin only), which queues an event again through the same service as the API's resend, audited
/// as `webhook_event.resent` under the operator. The form is not shown to a read-only operator and
/// its post is refused anyway.
struct WebhooksScreen {
    let services: ConsoleServices

    func page(query: [String: String], signed: ConsoleSignedIn, notice: Markup = "") async throws -> Response {
        let statusText = query["status"] ?? ""
        let status = WebhookEventStatus(rawValue: statusText)
        guard statusText.isEmpty || status != nil else {
            return screen(
                signed: signed, status: nil,
                body: "<p class=\"notice error\" role=\"alert\">Status is one of pending, delivered or expired.</p>", httpStatus: .badRequest)
        }
        guard let paging = ConsolePaging(query: query) else {
            return screen(signed: signed, status: status, body: ConsolePaging.refusal, httpStatus: .badRequest)
        }
        var fetched: [(merchant: Merchant, event: WebhookEvent)] = []
        for merchant in try await services.merchants.merchants() where signed.account.covers(merchantID: merchant.id) {
            let events = try await services.webhookEvents.list(
                merchant: merchant, status: status, beforeSequence: paging.cursor, limit: ConsolePaging.pageSize + 1)
            fetched += events.map { (merchant, $0) }
        }
        let (rows, next) = ConsolePaging.newestFirst(fetched) { $0.event.sequence }
        let mayResend = signed.account.role.allows(.support)
        let lines = rows.map { row -> Markup in
            let (merchant, event) = row
            let when = { (instant: Date) in ConsoleFormat.instant(instant, zone: merchant.zone, zoneName: merchant.zoneName) }
            let next = event.status == .pending ? when(event.nextAttemptAt) : ""
            let resend: Markup =
                mayResend
                ? """
                <form method="post" action="/console/webhooks/\(merchant.id)/\(event.id)/resend">
                <input type="hidden" name="csrf" value="\(signed.csrf)">
                <button type="submit" aria-label="Resend \(event.id)">Resend</button></form>
                """
                : ""
            return """
                <tr><td class="mono">\(event.id)</td><td>\(merchant.name)</td><td>\(event.type)</td><td>\(event.status.rawValue)</td>
                <td>\(event.attempts)</td><td>\(event.lastError ?? "")</td><td>\(next)</td><td>\(when(event.createdAt))</td><td>\(resend)</td></tr>
                """
        }
        let table: Markup =
            lines.isEmpty
            ? "<p role=\"status\">No webhook event matches.</p>"
            : """
            <div class="table" role="region" aria-label="Webhook events" tabindex="0"><table>
            <thead><tr><th scope="col">Event</th><th scope="col">Merchant</th><th scope="col">Type</th><th scope="col">Status</th>
            <th scope="col">Attempts</th><th scope="col">Last error</th><th scope="col">Next attempt</th><th scope="col">Queued</th>
            <th scope="col">Action</th></tr></thead><tbody>\(lines)</tbody></table></div>
            """
        let pages = paging.links(path: "/console/webhooks", query: query, next: next)
        return screen(signed: signed, status: status, body: "\(notice)\(table)\(pages)", httpStatus: .ok)
    }

    /// Queues the merchant's event again, as the operator; back to the list with the event shown pending.
    func resend(merchantID: String, id: String, signed: ConsoleSignedIn) async throws -> Response {
        guard signed.account.covers(merchantID: merchantID), let merchant = try await services.merchants.merchant(id: merchantID) else {
            return notFound(signed)
        }
        do {
            _ = try await services.webhookEvents.resend(id: id, merchant: merchant, actor: signed.account.actor)
        } catch WebhookEventError.notFound {
            return notFound(signed)
        }
        return ConsoleResponses.redirect("/console/webhooks?status=pending")
    }

    private func screen(signed: ConsoleSignedIn, status: WebhookEventStatus?, body: Markup, httpStatus: HTTPResponse.Status) -> Response {
        let options = [Markup("<option value=\"\">Any</option>")] + WebhookEventStatus.allCases.map { option in
            let selected: Markup = option == status ? " selected" : ""
            return "<option value=\"\(option.rawValue)\"\(selected)>\(option.rawValue)</option>"
        }
        let content: Markup = """
            <form class="search" method="get" action="/console/webhooks" role="search">
            <div><label for="status">Status</label><select id="status" name="status">\(options)</select></div>
            <button type="submit">Filter</button></form>
            \(body)
            """
        return ConsoleResponses.html(
            ConsolePage.shell(current: "webhooks", title: "Webhooks", account: signed.account, csrf: signed.csrf, content: content), status: httpStatus)
    }

    private func notFound(_ signed: ConsoleSignedIn) -> Response {
        ConsoleResponses.html(
            ConsolePage.shell(
                current: "webhooks", title: "Not found", account: signed.account, csrf: signed.csrf,
                content: "<p class=\"notice error\" role=\"alert\">No such webhook event.</p>"),
            status: .notFound)
    }
}
