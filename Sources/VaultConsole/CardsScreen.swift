import Foundation
import Hummingbird
import Vault

/// Cards: one search box over the merchant reference, token, last four digits and holder name
/// (the holder-name blind index), in every merchant the operator may see; each search is audited
/// under the operator (`secure_card.searched`). Numbers are shown masked only.
struct CardsScreen {
    let services: ConsoleServices

    /// Characters a search may have.
    static let maxQueryLength = 128

    func page(query: String?, signed: ConsoleSignedIn) async throws -> Response {
        let text = query?.trimmingCharacters(in: .whitespaces) ?? ""
        var results: Markup = ""
        var status: HTTPResponse.Status = .ok
        if !text.isEmpty {
            if text.count > Self.maxQueryLength || text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                results = "<p class=\"notice error\" role=\"alert\">A search has at most \(Self.maxQueryLength) characters.</p>"
                status = .badRequest
            } else if CardNumberShape.contains(text) {
                results = "<p class=\"notice error\" role=\"alert\">Search by the last four digits, never a whole card number.</p>"
                status = .badRequest
            } else {
                results = try await search(text, signed: signed)
            }
        }
        let shownQuery = CardNumberShape.contains(text) ? "" : text
        let content: Markup = """
            <form class="search" method="get" action="/console/cards" role="search">
            <div><label for="q">Search cards</label>
            <input type="search" id="q" name="q" value="\(shownQuery)" maxlength="\(Self.maxQueryLength)" placeholder="Reference, token, last four or holder name"></div>
            <button type="submit">Search</button></form>
            \(results)
            """
        return ConsoleResponses.html(
            ConsolePage.shell(current: "cards", title: "Cards", account: signed.account, csrf: signed.csrf, content: content), status: status)
    }

    private func search(_ text: String, signed: ConsoleSignedIn) async throws -> Markup {
        var rows: [Markup] = []
        for merchant in try await services.merchants.merchants() where signed.account.covers(merchantID: merchant.id) {
            let cards = try await services.cards.list(merchant: merchant, query: SecureCardQuery(text: text, limit: 20), readBy: signed.account.actor)
            for card in cards {
                rows.append(
                    """
                    <tr><td>\(merchant.name)</td><td class="mono">\(card.reference)</td><td>\(card.merchantReference)</td>
                    <td class="mono">\(card.maskedNumber)</td><td>\(card.cardType.rawValue)</td><td>\(card.expiry.description)</td>
                    <td>\(card.holderName ?? "")</td><td>\(card.status.rawValue)</td></tr>
                    """)
            }
        }
        guard !rows.isEmpty else { return "<p role=\"status\">No card matches.</p>" }
        return """
            <div class="table" role="region" aria-label="Cards found" tabindex="0"><table>
            <thead><tr><th scope="col">Merchant</th><th scope="col">Token</th><th scope="col">Reference</th><th scope="col">Number</th>
            <th scope="col">Brand</th><th scope="col">Expiry</th><th scope="col">Holder</th><th scope="col">Status</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            """
    }
}
