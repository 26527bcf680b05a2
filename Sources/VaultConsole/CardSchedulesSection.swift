import Foundation
import Scheduler
import Vault

/// The schedules charging a card, on the card's page: status, plan in one line, amount per step in
/// the currency's format and the next step's due time in the merchant's zone, each linking to the
/// schedule's page; 50 a page, oldest first, through `ScheduleService.list` filtered by the card's
/// token, the list `GET /v1/schedules?secureCardReference=` answers.
struct CardSchedulesSection {
    let services: ConsoleServices

    /// The section for `card` of `merchant`, at the page `query` names (`cursor`, `trail`).
    func render(card: SecureCard, merchant: Merchant, query: [String: String]) async throws -> Markup {
        guard let paging = ConsolePaging(query: query) else { return "<h2 id=\"schedules\">Schedules</h2>\(ConsolePaging.refusal)" }
        let schedules = services.scheduling.schedules
        let found = try await schedules.list(
            merchant: merchant, status: nil, secureCardReference: card.reference, afterSequence: paging.cursor, limit: ConsolePaging.pageSize + 1)
        let (page, next) = ConsolePaging.oldestFirst(found) { $0.sequence }
        guard !page.isEmpty else { return "<h2 id=\"schedules\">Schedules</h2><p>No schedule charges this card.</p>" }
        var rows: [Markup] = []
        for schedule in page {
            var due = "none"
            if schedule.status.isOpen, let step = try await schedules.nextStep(of: schedule) {
                due = ConsoleFormat.instant(step.nextAttemptAt ?? step.dueAt, zone: merchant.zone, zoneName: merchant.zoneName)
            }
            rows.append(
                """
                <tr><td class="nowrap"><a class="mono" href="/console/schedules/\(merchant.id)/\(schedule.id)">\(schedule.id)</a></td>
                <td>\(schedule.status.rawValue.replacingOccurrences(of: "_", with: " "))</td><td>\(SchedulesScreen.planSummary(schedule.plan))</td>
                <td class="number">\(ConsoleFormat.amount(schedule.amount, schedule.currency))</td><td>\(due)</td></tr>
                """)
        }
        let links = paging.links(path: "/console/cards/\(merchant.id)/\(card.reference)", query: query, next: next)
        return """
            <h2 id="schedules">Schedules</h2>
            <div class="table" role="region" aria-label="Schedules charging the card" tabindex="0"><table>
            <thead><tr><th scope="col">Id</th><th scope="col">Status</th><th scope="col">Plan</th><th scope="col">Amount per step</th>
            <th scope="col">Next step due</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>\(links)
            """
    }
}
