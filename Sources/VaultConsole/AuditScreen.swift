import Foundation
import Hummingbird
import Vault

/// Audit: the chain's events, newest first, with filters on actor, action and object, the actor of
/// each shown (`operator:NAME`, `apikey:...`, `cli`). An operator limited to some merchants sees
/// their events only, 50 a page. Viewing the trail is itself recorded (`console.audit_viewed`).
struct AuditScreen {
    let services: ConsoleServices

    func page(query: [String: String], signed: ConsoleSignedIn, verification: Markup = "") async throws -> Response {
        var filter = AuditFilter()
        let fields = ["actor", "action", "objectId"].map { (name: $0, value: query[$0]?.trimmingCharacters(in: .whitespaces) ?? "") }
        guard let paging = ConsolePaging(query: query) else {
            return ConsoleResponses.html(
                ConsolePage.shell(current: "audit", title: "Audit", account: signed.account, csrf: signed.csrf, content: ConsolePaging.refusal),
                status: .badRequest)
        }
        if fields.contains(where: { $0.value.count > 128 || CardNumberShape.contains($0.value) }) {
            return ConsoleResponses.html(
                ConsolePage.shell(
                    current: "audit", title: "Audit", account: signed.account, csrf: signed.csrf,
                    content: "<p class=\"notice error\" role=\"alert\">A filter has at most 128 characters and never a card number.</p>"),
                status: .badRequest)
        }
        for field in fields where !field.value.isEmpty {
            switch field.name {
            case "actor": filter.actor = field.value
            case "action": filter.action = field.value
            default: filter.objectID = field.value
            }
        }
        let merchants = try await services.merchants.merchants()
        let names = Dictionary(merchants.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var fetched: [AuditEvent] = []
        let limit = ConsolePaging.pageSize + 1
        if signed.account.merchantIDs == nil {
            fetched = try await services.audit.auditEvents(merchantID: nil, filter: filter, before: paging.cursor, limit: limit)
        } else {
            for merchant in merchants where signed.account.covers(merchantID: merchant.id) {
                fetched += try await services.audit.auditEvents(merchantID: merchant.id, filter: filter, before: paging.cursor, limit: limit)
            }
        }
        let (events, next) = ConsolePaging.newestFirst(fetched) { $0.sequence }
        try await services.operators.record(account: signed.account, action: "console.audit_viewed", details: ["count": String(events.count)])
        let rows = events.map { event -> Markup in
            let details = event.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
            return """
                <tr><td>\(ConsoleFormat.instant(event.occurredAt, zone: TimeZone(identifier: "UTC")!, zoneName: "UTC"))</td>
                <td>\(event.actor)</td><td>\(event.action)</td><td class="mono">\(event.objectType) \(event.objectID ?? "")</td>
                <td>\(event.merchantID.flatMap { names[$0] } ?? "")</td><td>\(details)</td></tr>
                """
        }
        let inputs = Markup.joined(fields.map { field in
            let label = ["actor": "Actor", "action": "Action", "objectId": "Object id"][field.name] ?? field.name
            return "<div><label for=\"\(field.name)\">\(label)</label><input type=\"search\" id=\"\(field.name)\" name=\"\(field.name)\" value=\"\(field.value)\" maxlength=\"128\"></div>"
        })
        let table: Markup =
            rows.isEmpty
            ? "<p role=\"status\">No event matches.</p>"
            : """
            <div class="table" role="region" aria-label="Audit events" tabindex="0"><table>
            <thead><tr><th scope="col">When</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Object</th>
            <th scope="col">Merchant</th><th scope="col">Details</th></tr></thead><tbody>\(rows)</tbody></table></div>
            """
        // The chain spans every merchant: only an operator of every merchant is offered its check.
        let verify: Markup =
            signed.account.merchantIDs == nil
            ? """
            <form method="post" action="/console/audit/verify"><input type="hidden" name="csrf" value="\(signed.csrf)">
            <button type="submit">Verify the chain</button></form>
            """
            : ""
        let content: Markup = """
            \(verification)\(verify)
            <form class="search" method="get" action="/console/audit" role="search">\(inputs)<button type="submit">Filter</button></form>
            \(table)\(paging.links(path: "/console/audit", query: query, next: next))
            """
        return ConsoleResponses.html(ConsolePage.shell(current: "audit", title: "Audit", account: signed.account, csrf: signed.csrf, content: content))
    }

    /// Checks the whole audit chain (every link, every chain's bound head), as `vault audit verify`
    /// does, and shows the outcome above the events. The check reads every event, so it runs only
    /// when asked, by a form post, and is itself recorded (`console.audit_verified`).
    func verify(signed: ConsoleSignedIn) async throws -> Response {
        guard signed.account.merchantIDs == nil else {
            return ConsoleResponses.html(
                ConsolePage.shell(
                    current: "audit", title: "Audit", account: signed.account, csrf: signed.csrf,
                    content: "<p class=\"notice error\" role=\"alert\">The chain spans every merchant: only an operator of every merchant verifies it.</p>"),
                status: .forbidden)
        }
        let outcome = try await services.audit.verifyAuditChain()
        let notice: Markup
        switch outcome {
        case .intact(let events):
            notice = "<p class=\"notice\" role=\"status\">Chain verified: intact, \(Int(events)) events.</p>"
        case .broken(let sequence, let reason):
            notice = "<p class=\"notice error\" role=\"alert\">Chain verified: broken at event \(Int(sequence)): \(reason)</p>"
        }
        let intact = if case .intact = outcome { true } else { false }
        try await services.operators.record(account: signed.account, action: "console.audit_verified", details: ["intact": String(intact)])
        return try await page(query: [:], signed: signed, verification: notice)
    }
}
