import Foundation
import Hummingbird
import Payments
import Vault

/// Transactions: a search with filters over every merchant the operator may see, a transaction's
/// detail, and its refund, behind a confirmation that states the amount and currency (support and
/// admin only; the form is not shown to a read-only operator and its post is refused anyway).
struct TransactionsScreen {
    let services: ConsoleServices

    static let pageSize = 25

    // MARK: - Search

    func list(query: [String: String], signed: ConsoleSignedIn) async throws -> Response {
        let text = query["q"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let status = query["status"].flatMap { $0.isEmpty ? nil : TransactionStatus(rawValue: $0) }
        let type = query["type"].flatMap { $0.isEmpty ? nil : TransactionType(rawValue: $0) }
        var notice: Markup = ""
        var httpStatus: HTTPResponse.Status = .ok
        var rows: [Markup] = []
        if text.count > 128 || CardNumberShape.contains(text) || text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            notice = "<p class=\"notice error\" role=\"alert\">Search by id, reference, last four digits, amount, date or holder name (at most 128 characters, never a whole card number).</p>"
            httpStatus = .badRequest
        } else {
            for merchant in try await services.merchants.merchants() where signed.account.covers(merchantID: merchant.id) {
                var filter = TransactionFilter(status: status, type: type, text: text.isEmpty ? nil : text)
                filter = try await services.transactions.resolvingText(of: filter, merchant: merchant)
                let page = try await services.transactions.search(
                    merchant: merchant, filter: filter, order: .newestFirst, afterSequence: nil, limit: Self.pageSize, window: services.searchWindow)
                for transaction in page.transactions {
                    rows.append(
                        """
                        <tr><td><a href="/console/transactions/\(merchant.id)/\(transaction.id)" class="mono">\(transaction.id)</a></td>
                        <td>\(merchant.name)</td><td>\(transaction.type.rawValue)</td><td>\(transaction.status.rawValue)</td>
                        <td>\(ConsoleFormat.amount(transaction.amount, transaction.currency))</td>
                        <td class="mono">\(transaction.maskedNumber ?? "")</td><td>\(transaction.merchantReference ?? "")</td>
                        <td>\(ConsoleFormat.instant(transaction.createdAt, zone: merchant.zone, zoneName: merchant.zoneName))</td></tr>
                        """)
                }
            }
        }
        let statusOptions = [Markup("<option value=\"\">Any</option>")] + TransactionStatus.allCases.map { option in
            let selected: Markup = option == status ? " selected" : ""
            return "<option value=\"\(option.rawValue)\"\(selected)>\(option.rawValue)</option>"
        }
        let typeOptions = [Markup("<option value=\"\">Any</option>")] + TransactionType.allCases.map { option in
            let selected: Markup = option == type ? " selected" : ""
            return "<option value=\"\(option.rawValue)\"\(selected)>\(option.rawValue)</option>"
        }
        let table: Markup =
            rows.isEmpty
            ? "<p role=\"status\">No transaction matches.</p>"
            : """
            <div class="table" role="region" aria-label="Transactions found" tabindex="0"><table>
            <thead><tr><th scope="col">Id</th><th scope="col">Merchant</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Amount</th>
            <th scope="col">Card</th><th scope="col">Reference</th><th scope="col">Created</th></tr></thead><tbody>\(rows)</tbody></table></div>
            """
        let shownText = CardNumberShape.contains(text) ? "" : text
        let content: Markup = """
            <form class="search" method="get" action="/console/transactions" role="search">
            <div><label for="q">Search transactions</label><input type="search" id="q" name="q" value="\(shownText)" maxlength="128"></div>
            <div><label for="status">Status</label><select id="status" name="status">\(statusOptions)</select></div>
            <div><label for="type">Type</label><select id="type" name="type">\(typeOptions)</select></div>
            <button type="submit">Search</button></form>
            \(notice)\(table)
            """
        return ConsoleResponses.html(
            ConsolePage.shell(current: "transactions", title: "Transactions", account: signed.account, csrf: signed.csrf, content: content),
            status: httpStatus)
    }

    // MARK: - Detail

    /// The merchant and transaction of a path, when the operator may see them.
    func find(merchantID: String, id: String, signed: ConsoleSignedIn) async throws -> (Merchant, Transaction)? {
        guard signed.account.covers(merchantID: merchantID), let merchant = try await services.merchants.merchant(id: merchantID),
              let transaction = try await services.transactions.find(id: id, merchant: merchant)
        else { return nil }
        return (merchant, transaction)
    }

    func detail(merchantID: String, id: String, signed: ConsoleSignedIn, notice: Markup = "", status: HTTPResponse.Status = .ok) async throws
        -> Response
    {
        guard let (merchant, transaction) = try await find(merchantID: merchantID, id: id, signed: signed) else { return notFound(signed) }
        let zone = (merchant.zone, merchant.zoneName)
        var facts: [(String, Markup)] = [
            ("Merchant", "\(merchant.name)"), ("Type", "\(transaction.type.rawValue)"), ("Status", "\(transaction.status.rawValue)"),
            ("Amount", "\(ConsoleFormat.amount(transaction.amount, transaction.currency))"),
            ("Created", "\(ConsoleFormat.instant(transaction.createdAt, zone: zone.0, zoneName: zone.1))"),
            ("Card", "<span class=\"mono\">\(transaction.maskedNumber ?? "")</span> \(transaction.cardType ?? "")"),
            ("Card token", "<span class=\"mono\">\(transaction.secureCardReference ?? "")</span>"),
            ("Reference", "\(transaction.merchantReference ?? "")"), ("Gateway", "\(transaction.gateway)"),
            ("Authorization code", "\(transaction.authCode ?? "")"),
        ]
        if transaction.refundedAmount > 0 { facts.append(("Refunded", "\(ConsoleFormat.amount(transaction.refundedAmount, transaction.currency))")) }
        if transaction.voidedAmount > 0 { facts.append(("Voided", "\(ConsoleFormat.amount(transaction.voidedAmount, transaction.currency))")) }
        if let parent = transaction.parentID {
            facts.append(("Original", "<a class=\"mono\" href=\"/console/transactions/\(merchant.id)/\(parent)\">\(parent)</a>"))
        }
        let list = Markup.joined(facts.map { "<tr><th scope=\"row\">\($0.0)</th><td>\($0.1)</td></tr>" })
        var refund: Markup = ""
        if signed.account.role.allows(.support) && [.sale, .capture].contains(transaction.type)
            && [.approved, .partiallyRefunded, .captured].contains(transaction.status)
        {
            refund = """
                <h2>Refund</h2>
                <form method="post" action="/console/transactions/\(merchant.id)/\(transaction.id)/refund">
                <input type="hidden" name="csrf" value="\(signed.csrf)">
                <label for="amount">Amount to refund (\(transaction.currency.code))</label>
                <input type="text" id="amount" name="amount" inputmode="decimal" required autocomplete="off">
                <p><button type="submit">Review refund</button></p></form>
                """
        }
        let content: Markup = """
            \(notice)<div class="table"><table><tbody>\(list)</tbody></table></div>\(refund)
            <p><a href="/console/transactions">Back to transactions</a></p>
            """
        return ConsoleResponses.html(
            ConsolePage.shell(current: "transactions", title: "Transaction \(transaction.id)", account: signed.account, csrf: signed.csrf, content: content),
            status: status)
    }

    // MARK: - Refund

    /// The first post shows what will be refunded, in the transaction's currency, and asks to
    /// confirm; the second (with `confirm`) refunds through the same service as the API, audited
    /// under the operator.
    func refund(merchantID: String, id: String, form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let (merchant, transaction) = try await find(merchantID: merchantID, id: id, signed: signed) else { return notFound(signed) }
        guard let minor = ConsoleFormat.minorUnits(typed: form["amount"] ?? "", transaction.currency) else {
            return try await detail(
                merchantID: merchantID, id: id, signed: signed,
                notice: "<p class=\"notice error\" role=\"alert\">Give the amount to refund in \(transaction.currency.code), e.g. 12.50.</p>", status: .unprocessableContent)
        }
        let amount = ConsoleFormat.amount(minor, transaction.currency)
        guard form["confirm"] == "yes" else {
            let content: Markup = """
                <p class="notice" role="alert">Refund <strong>\(amount)</strong> (\(transaction.currency.code)) of transaction
                <span class="mono">\(transaction.id)</span> to card <span class="mono">\(transaction.maskedNumber ?? "")</span>?</p>
                <form method="post" action="/console/transactions/\(merchant.id)/\(transaction.id)/refund">
                <input type="hidden" name="csrf" value="\(signed.csrf)"><input type="hidden" name="amount" value="\(form["amount"] ?? "")">
                <input type="hidden" name="confirm" value="yes">
                <p><button type="submit" class="danger">Refund \(amount)</button> <a href="/console/transactions/\(merchant.id)/\(transaction.id)">Cancel</a></p>
                </form>
                """
            return ConsoleResponses.html(
                ConsolePage.shell(current: "transactions", title: "Confirm refund", account: signed.account, csrf: signed.csrf, content: content))
        }
        do {
            let done = try await services.transactions.refund(id: transaction.id, amount: minor, merchant: merchant, actor: signed.account.actor)
            return ConsoleResponses.redirect("/console/transactions/\(merchant.id)/\(done.id)")
        } catch let error as TransactionError {
            let message: String =
                switch error {
                case .invalid(_, _, let message), .notAllowed(_, let message), .notPermitted(_, let message): message
                case .declined: "The gateway declined the refund."
                case .notFound: "The transaction is not there any more."
                default: "The refund did not go through: \(error)."
                }
            return try await detail(
                merchantID: merchantID, id: id, signed: signed, notice: "<p class=\"notice error\" role=\"alert\">\(message)</p>",
                status: .unprocessableContent)
        }
    }

    private func notFound(_ signed: ConsoleSignedIn) -> Response {
        ConsoleResponses.html(
            ConsolePage.shell(
                current: "transactions", title: "Not found", account: signed.account, csrf: signed.csrf,
                content: "<p class=\"notice error\" role=\"alert\">No such transaction.</p>"),
            status: .notFound)
    }
}
