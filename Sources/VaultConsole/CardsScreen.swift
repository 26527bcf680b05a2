import Foundation
import Hummingbird
import Payments
import Vault

/// Cards: one search box over the merchant reference, token, last four digits and holder name
/// (the holder-name blind index), in every merchant the operator may see; each search is audited
/// under the operator (`secure_card.searched`), 50 a page. Numbers are shown masked only. A card's
/// page lists the schedules charging it and offers its update, delete and purge (``CardActions``),
/// each to the roles its ``ConsoleAction`` allows.
struct CardsScreen {
    let services: ConsoleServices

    /// Characters a search may have.
    static let maxQueryLength = 128

    func page(query parameters: [String: String], signed: ConsoleSignedIn) async throws -> Response {
        let text = parameters["q"]?.trimmingCharacters(in: .whitespaces) ?? ""
        var results: Markup = ""
        var status: HTTPResponse.Status = .ok
        if !text.isEmpty {
            if text.count > Self.maxQueryLength || text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                results = "<p class=\"notice error\" role=\"alert\">A search has at most \(Self.maxQueryLength) characters.</p>"
                status = .badRequest
            } else if CardNumberShape.contains(text) {
                results = "<p class=\"notice error\" role=\"alert\">Search by the last four digits, never a whole card number.</p>"
                status = .badRequest
            } else if let paging = ConsolePaging(query: parameters) {
                results = try await search(text, paging: paging, query: parameters, signed: signed)
            } else {
                results = ConsolePaging.refusal
                status = .badRequest
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

    private func search(_ text: String, paging: ConsolePaging, query: [String: String], signed: ConsoleSignedIn) async throws -> Markup {
        var found: [(merchant: Merchant, card: SecureCard)] = []
        for merchant in try await services.merchants.merchants() where signed.account.covers(merchantID: merchant.id) {
            let cards = try await services.cards.list(
                merchant: merchant, query: SecureCardQuery(text: text, afterSequence: paging.cursor, limit: ConsolePaging.pageSize + 1),
                readBy: signed.account.actor)
            found += cards.map { (merchant, $0) }
        }
        let (page, next) = ConsolePaging.oldestFirst(found) { $0.card.sequence }
        let rows = page.map { merchant, card -> Markup in
            """
            <tr><td>\(merchant.name)</td><td><a class="mono" href="/console/cards/\(merchant.id)/\(card.reference)">\(card.reference)</a></td><td>\(card.merchantReference)</td>
            <td class="mono">\(card.maskedNumber)</td><td>\(card.cardType.rawValue)</td><td>\(card.expiry.description)</td>
            <td>\(card.holderName ?? "")</td><td>\(card.status.rawValue)</td></tr>
            """
        }
        let pages = paging.links(path: "/console/cards", query: query, next: next)
        guard !rows.isEmpty else { return "<p role=\"status\">No card matches.</p>" }
        return """
            <div class="table" role="region" aria-label="Cards found" tabindex="0"><table>
            <thead><tr><th scope="col">Merchant</th><th scope="col">Token</th><th scope="col">Reference</th><th scope="col">Number</th>
            <th scope="col">Brand</th><th scope="col">Expiry</th><th scope="col">Holder</th><th scope="col">Status</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>\(pages)
            """
    }

    /// One card: masked number, brand, expiry, holder, customer details, the schedules charging it
    /// (``CardSchedulesSection``, at the page `query` names) and the card's latest transactions. Opening it is a `secure_card.retrieved` event under the operator.
    func detail(
        merchantID: String, reference: String, signed: ConsoleSignedIn, notice: Markup = "", status: HTTPResponse.Status = .ok,
        query: [String: String] = [:]
    ) async throws -> Response {
        guard signed.account.covers(merchantID: merchantID), let merchant = try await services.merchants.merchant(id: merchantID),
              OpaqueToken.isWellFormed(reference, prefix: "sc_")
        else { return notFound(signed) }
        let card: SecureCard
        do {
            card = try await services.cards.retrieve(reference: reference, merchant: merchant, readBy: signed.account.actor)
        } catch SecureCardError.notFound {
            return notFound(signed)
        }
        let zone = (merchant.zone, merchant.zoneName)
        var facts: [(String, Markup)] = [
            ("Merchant", "\(merchant.name)"), ("Token", "<span class=\"mono\">\(card.reference)</span>"), ("Reference", "\(card.merchantReference)"),
            ("Number", "<span class=\"mono\">\(card.maskedNumber)</span>"), ("Brand", "\(card.cardType.rawValue)"), ("Expiry", "\(card.expiry.description)"),
            ("Holder", "\(card.holderName ?? "")"), ("Status", "\(card.status.rawValue)"),
            ("Registered", "\(ConsoleFormat.instant(card.createdAt, zone: zone.0, zoneName: zone.1))"),
        ]
        if let customer = card.customer {
            let parts: [(String, String?)] = [
                ("Customer e-mail", customer.email), ("Customer phone", customer.mobileNumber), ("City", customer.city), ("Region", customer.region),
                ("Country", customer.country),
            ]
            facts += parts.compactMap { name, value in value.map { (name, Markup(stringLiteral: HTML.escape($0))) } }
        }
        facts += card.customFields.map { ("Field \($0.name)", Markup(stringLiteral: HTML.escape($0.value))) }
        let list = Markup.joined(facts.map { "<tr><th scope=\"row\">\($0.0)</th><td>\($0.1)</td></tr>" })
        let transactions = try await services.transactions.list(
            merchant: merchant, filter: TransactionFilter(secureCardReference: card.reference), beforeSequence: nil, limit: 25)
        let rows = transactions.map { transaction -> Markup in
            """
            <tr><td><a class="mono" href="/console/transactions/\(merchant.id)/\(transaction.id)">\(transaction.id)</a></td>
            <td>\(transaction.type.rawValue)</td><td>\(transaction.status.rawValue)</td><td>\(ConsoleFormat.amount(transaction.amount, transaction.currency))</td>
            <td>\(ConsoleFormat.instant(transaction.createdAt, zone: zone.0, zoneName: zone.1))</td></tr>
            """
        }
        let history: Markup =
            rows.isEmpty
            ? "<p>No transaction used this card.</p>"
            : """
            <div class="table" role="region" aria-label="Transactions of the card" tabindex="0"><table>
            <thead><tr><th scope="col">Id</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Created</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            """
        var actions: Markup = ""
        if ConsoleAction.cardActions.contains(where: signed.may) {
            let definitions = signed.may(.updateCard) ? try await services.customFields.definitions(merchantID: merchant.id) : []
            actions = CardActions(services: services).forms(card, merchant: merchant, definitions: definitions, signed: signed)
        }
        let schedules = try await CardSchedulesSection(services: services).render(card: card, merchant: merchant, query: query)
        let content: Markup = """
            \(notice)<div class="table"><table><tbody>\(list)</tbody></table></div>
            \(schedules)<h2>Transactions</h2>\(history)\(actions)
            <p><a href="/console/cards">Back to cards</a></p>
            """
        return ConsoleResponses.html(
            ConsolePage.shell(current: "cards", title: "Card \(card.merchantReference)", account: signed.account, csrf: signed.csrf, content: content),
            status: status)
    }

    func notFound(_ signed: ConsoleSignedIn) -> Response {
        ConsoleResponses.html(
            ConsolePage.shell(
                current: "cards", title: "Not found", account: signed.account, csrf: signed.csrf,
                content: "<p class=\"notice error\" role=\"alert\">No such card.</p>"),
            status: .notFound)
    }
}
