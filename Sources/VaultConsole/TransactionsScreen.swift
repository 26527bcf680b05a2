import Foundation
import Hummingbird
import Payments
import Vault

/// Transactions: a search over every merchant the operator may see, filtered as `GET
/// /v1/transactions` filters (``TransactionFilter/init(query:zone:)``: status, type, local dates of
/// each merchant's zone, amount range, currency, card token, free text), 50 a page; a transaction's
/// detail; and its refund, capture and void, each behind a confirmation that states the amount and
/// currency (support and admin only; the forms are not shown to a read-only operator and their posts
/// are refused anyway), through the same ``TransactionService`` calls as the API.
struct TransactionsScreen {
    let services: ConsoleServices

    /// The filters of the search form, in order: parameter, label, input type.
    static let textFilters: [(name: String, label: String, type: String)] = [
        ("from", "From (local date)", "date"), ("to", "To (local date)", "date"), ("minAmount", "Minimum amount", "text"),
        ("maxAmount", "Maximum amount", "text"), ("currency", "Currency", "text"), ("secureCardReference", "Card token", "text"),
    ]

    // MARK: - Search

    func list(query: [String: String], signed: ConsoleSignedIn) async throws -> Response {
        let status = query["status"].flatMap { $0.isEmpty ? nil : TransactionStatus(rawValue: $0) }
        let type = query["type"].flatMap { $0.isEmpty ? nil : TransactionType(rawValue: $0) }
        var notice: Markup = ""
        var httpStatus: HTTPResponse.Status = .ok
        var rows: [Markup] = []
        var pages: Markup = ""
        let given = query.filter { !["cursor", "trail"].contains($0.key) }.mapValues { $0.trimmingCharacters(in: .whitespaces) }
        if given.values.contains(where: { $0.count > 128 || CardNumberShape.contains($0) || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) {
            notice = "<p class=\"notice error\" role=\"alert\">Search by id, reference, last four digits, amount, date or holder name (at most 128 characters, never a whole card number).</p>"
            httpStatus = .badRequest
        } else if let paging = ConsolePaging(query: query) {
            switch Self.filterQuery(given) {
            case .failure(let error):
                notice = "<p class=\"notice error\" role=\"alert\">\(error.message)</p>"
                httpStatus = .badRequest
            case .success(let parameters):
                do {
                    _ = try TransactionFilter(query: parameters, zone: TimeZone(identifier: "UTC")!)
                    let found = try await search(parameters, paging: paging, signed: signed)
                    rows = found.rows
                    pages = paging.links(path: "/console/transactions", query: query, next: found.next)
                } catch let error as TransactionFilterError {
                    notice = "<p class=\"notice error\" role=\"alert\">\(error.message)</p>"
                    httpStatus = .badRequest
                }
            }
        } else {
            notice = ConsolePaging.refusal
            httpStatus = .badRequest
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
            ? (httpStatus == .ok ? "<p role=\"status\">No transaction matches.</p>" : "")
            : """
            <div class="table" role="region" aria-label="Transactions found" tabindex="0"><table>
            <thead><tr><th scope="col">Id</th><th scope="col">Merchant</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Amount</th>
            <th scope="col">Card</th><th scope="col">Reference</th><th scope="col">Created</th></tr></thead><tbody>\(rows)</tbody></table></div>
            """
        let shown = { (name: String) -> String in
            let value = given[name] ?? ""
            return CardNumberShape.contains(value) || value.count > 128 ? "" : value
        }
        let inputs = Markup.joined(Self.textFilters.map { filter in
            """
            <div><label for="\(filter.name)">\(filter.label)</label><input type="\(filter.type)" id="\(filter.name)" name="\(filter.name)" value="\(shown(filter.name))" maxlength="128" autocomplete="off"></div>
            """
        })
        let content: Markup = """
            <form class="search" method="get" action="/console/transactions" role="search">
            <div><label for="q">Search transactions</label><input type="search" id="q" name="q" value="\(shown("q"))" maxlength="128"></div>
            <div><label for="status">Status</label><select id="status" name="status">\(statusOptions)</select></div>
            <div><label for="type">Type</label><select id="type" name="type">\(typeOptions)</select></div>
            \(inputs)
            <button type="submit">Search</button></form>
            <p>Dates are each merchant's own local dates; amounts are in major units of the currency chosen (12.50).</p>
            \(notice)\(table)\(pages)
            """
        return ConsoleResponses.html(
            ConsolePage.shell(current: "transactions", title: "Transactions", account: signed.account, csrf: signed.csrf, content: content),
            status: httpStatus)
    }

    /// The search form's fields as the query `TransactionFilter(query:zone:)` reads: empty fields
    /// dropped, the amount range typed in major units of the currency written in minor units (an
    /// amount range needs the currency, whose decimals it is read with).
    static func filterQuery(_ given: [String: String]) -> Result<[String: String], AmountRangeError> {
        var parameters: [String: String] = [:]
        for name in ["status", "type", "from", "to", "currency", "secureCardReference", "q"] {
            if let value = given[name], !value.isEmpty { parameters[name] = value }
        }
        for (name, label) in [("minAmount", "minimum"), ("maxAmount", "maximum")] {
            guard let typed = given[name], !typed.isEmpty else { continue }
            guard let code = parameters["currency"], let currency = try? Currency(code: code) else {
                return .failure(AmountRangeError(message: "Choose the currency (e.g. USD) to search by a \(label) amount."))
            }
            guard let minor = typed == "0" ? 0 : ConsoleFormat.minorUnits(typed: typed, currency) else {
                return .failure(AmountRangeError(message: "The \(label) amount is an amount in \(currency.code), e.g. 12.50."))
            }
            parameters[name] = String(minor)
        }
        return .success(parameters)
    }

    /// A malformed amount of the search form.
    struct AmountRangeError: Error {
        var message: String
    }

    /// One page of the search merged from every merchant the operator may see. A text search
    /// examines a bounded window per merchant: when one ran out of window before filling, the next
    /// page starts where its window stopped, and this page shows only the rows above that point, so
    /// nothing any merchant did not examine is skipped.
    private func search(_ parameters: [String: String], paging: ConsolePaging, signed: ConsoleSignedIn) async throws -> (rows: [Markup], next: Int64?) {
        var found: [(merchant: Merchant, transaction: Transaction)] = []
        var resume: Int64?
        for merchant in try await services.merchants.merchants() where signed.account.covers(merchantID: merchant.id) {
            var filter = try TransactionFilter(query: parameters, zone: merchant.zone)
            filter = try await services.transactions.resolvingText(of: filter, merchant: merchant)
            let page = try await services.transactions.search(
                merchant: merchant, filter: filter, order: .newestFirst, afterSequence: paging.cursor, limit: ConsolePaging.pageSize + 1,
                window: services.searchWindow)
            found += page.transactions.map { (merchant, $0) }
            if let stop = page.resumeAfter { resume = max(resume ?? stop, stop) }
        }
        var (shown, next) = ConsolePaging.newestFirst(found) { $0.transaction.sequence }
        if let resume, resume > (next ?? 0) {
            shown = shown.filter { $0.transaction.sequence >= resume }
            next = resume
        }
        let rows = shown.map { merchant, transaction -> Markup in
            """
            <tr><td><a href="/console/transactions/\(merchant.id)/\(transaction.id)" class="mono">\(transaction.id)</a></td>
            <td>\(merchant.name)</td><td>\(transaction.type.rawValue)</td><td>\(transaction.status.rawValue)</td>
            <td>\(ConsoleFormat.amount(transaction.amount, transaction.currency))</td>
            <td class="mono">\(transaction.maskedNumber ?? "")</td><td>\(transaction.merchantReference ?? "")</td>
            <td>\(ConsoleFormat.instant(transaction.createdAt, zone: merchant.zone, zoneName: merchant.zoneName))</td></tr>
            """
        }
        return (rows, next)
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
        facts += Self.gatewayFacts(transaction, reversal: await reversal(of: transaction, merchant: merchant))
        if transaction.refundedAmount > 0 { facts.append(("Refunded", "\(ConsoleFormat.amount(transaction.refundedAmount, transaction.currency))")) }
        if transaction.voidedAmount > 0 { facts.append(("Voided", "\(ConsoleFormat.amount(transaction.voidedAmount, transaction.currency))")) }
        if let parent = transaction.parentID {
            facts.append(("Original", "<a class=\"mono\" href=\"/console/transactions/\(merchant.id)/\(parent)\">\(parent)</a>"))
        }
        let list = Markup.joined(facts.map { "<tr><th scope=\"row\">\($0.0)</th><td>\($0.1)</td></tr>" })
        var actions: Markup = ""
        if signed.account.role.allows(.support) {
            actions = Markup.joined(FollowUp.allCases.filter { $0.applies(to: transaction) }.map { $0.form(transaction, merchant: merchant, csrf: signed.csrf) })
        }
        let content: Markup = """
            \(notice)<div class="table"><table><tbody>\(list)</tbody></table></div>\(actions)
            <p><a href="/console/transactions">Back to transactions</a></p>
            """
        return ConsoleResponses.html(
            ConsolePage.shell(current: "transactions", title: "Transaction \(transaction.id)", account: signed.account, csrf: signed.csrf, content: content),
            status: status)
    }

    // MARK: - Refund, capture, void

    /// What an operator may do to a transaction from its page.
    enum FollowUp: String, CaseIterable {
        case capture, void, refund

        /// Whether the transaction's page offers it: an approved authorization is captured; an
        /// approved sale, authorization or capture not yet refunded is voided; a sale or capture
        /// with money left is refunded. The service decides the rest (window, what remains).
        func applies(to transaction: Transaction) -> Bool {
            switch self {
            case .capture: transaction.type == .authorize && transaction.status == .approved
            case .void:
                [.sale, .authorize, .capture].contains(transaction.type) && transaction.status == .approved && transaction.refundedAmount == 0
            case .refund: [.sale, .capture].contains(transaction.type) && [.approved, .partiallyRefunded, .captured].contains(transaction.status)
            }
        }

        var title: String {
            switch self {
            case .capture: "Capture"
            case .void: "Void"
            case .refund: "Refund"
            }
        }

        /// Whether the operator types the amount (a void reverses the whole remainder).
        var takesAmount: Bool { self != .void }

        /// The amount a void reverses: what was not voided yet.
        static func remainder(of transaction: Transaction) -> Int64 { transaction.amount - transaction.voidedAmount }

        func form(_ transaction: Transaction, merchant: Merchant, csrf: String) -> Markup {
            let amount: Markup =
                takesAmount
                ? """
                <label for="\(rawValue)-amount">Amount to \(rawValue) (\(transaction.currency.code))</label>
                <input type="text" id="\(rawValue)-amount" name="amount" inputmode="decimal" required autocomplete="off"\(self == .capture ? Markup(" value=\"\(Money(minorUnits: Self.remainder(of: transaction), currency: transaction.currency).decimalString)\"") : "")>
                """
                : "<p>Reverses the whole remainder, \(ConsoleFormat.amount(Self.remainder(of: transaction), transaction.currency)) (\(transaction.currency.code)).</p>"
            return """
                <h2>\(title)</h2>
                <form method="post" action="/console/transactions/\(merchant.id)/\(transaction.id)/\(rawValue)">
                <input type="hidden" name="csrf" value="\(csrf)">\(amount)
                <p><button type="submit">Review \(rawValue)</button></p></form>
                """
        }
    }

    /// The first post shows what will be captured, voided or refunded, in the transaction's
    /// currency, and asks to confirm; the second (with `confirm`) acts through the same service call
    /// as the API, audited under the operator.
    /// The prefix of a follow-up confirmation's one-time key.
    static let onceKeyPrefix = "once_"

    func followUp(_ action: FollowUp, merchantID: String, id: String, form: ConsoleForm, signed: ConsoleSignedIn) async throws -> Response {
        guard let (merchant, transaction) = try await find(merchantID: merchantID, id: id, signed: signed) else { return notFound(signed) }
        let minor: Int64?
        if action.takesAmount {
            guard let typed = ConsoleFormat.minorUnits(typed: form["amount"] ?? "", transaction.currency) else {
                return try await detail(
                    merchantID: merchantID, id: id, signed: signed,
                    notice: "<p class=\"notice error\" role=\"alert\">Give the amount to \(action.rawValue) in \(transaction.currency.code), e.g. 12.50.</p>",
                    status: .unprocessableContent)
            }
            minor = typed
        } else {
            minor = nil
        }
        let amount = ConsoleFormat.amount(minor ?? FollowUp.remainder(of: transaction), transaction.currency)
        guard form["confirm"] == "yes" else {
            let typed: Markup = action.takesAmount ? "<input type=\"hidden\" name=\"amount\" value=\"\(form["amount"] ?? "")\">" : ""
            let content: Markup = """
                <p class="notice" role="alert">\(action.title) <strong>\(amount)</strong> (\(transaction.currency.code)) of transaction
                <span class="mono">\(transaction.id)</span> on card <span class="mono">\(transaction.maskedNumber ?? "")</span>?</p>
                <form method="post" action="/console/transactions/\(merchant.id)/\(transaction.id)/\(action.rawValue)">
                <input type="hidden" name="csrf" value="\(signed.csrf)">\(typed)
                <input type="hidden" name="confirm" value="yes">
                <input type="hidden" name="once" value="\(OpaqueToken.make(prefix: Self.onceKeyPrefix, randomBits: 128))">
                <p><button type="submit" class="danger">\(action.title) \(amount)</button> <a href="/console/transactions/\(merchant.id)/\(transaction.id)">Cancel</a></p>
                </form>
                """
            return ConsoleResponses.html(
                ConsolePage.shell(current: "transactions", title: "Confirm \(action.rawValue)", account: signed.account, csrf: signed.csrf, content: content))
        }
        // The confirmation carries a one-time key claimed as the API claims an Idempotency-Key, with
        // the follow-up's id reserved: a double submit, a reload or a retry after a lost answer
        // moves the money once and shows the follow-up the first submit recorded.
        let refusedAgain = { (message: String, status: HTTPResponse.Status) in
            try await self.detail(
                merchantID: merchantID, id: id, signed: signed, notice: "<p class=\"notice error\" role=\"alert\">\(message)</p>", status: status)
        }
        guard let once = form["once"], OpaqueToken.isWellFormed(once, prefix: Self.onceKeyPrefix, randomBits: 128) else {
            return try await refusedAgain("This confirmation is not valid: review the \(action.rawValue) again and confirm it.", .unprocessableContent)
        }
        let idempotency = services.scheduling.idempotency
        let fingerprint = Array("console/transactions/\(transaction.id)/\(action.rawValue)\n\(minor.map(String.init) ?? "")".utf8)
        let claim: IdempotencyService.Claim
        switch try await idempotency.claim(merchantID: merchant.id, key: "console-\(once)", request: fingerprint, transactionID: Transaction.makeID()) {
        case .started(let started):
            claim = started
        case .takenOver(let taken):
            if let recorded = try? await services.transactions.get(id: taken.transactionID, merchant: merchant) {
                try await idempotency.complete(taken, status: 201, body: Array(recorded.id.utf8))
                return ConsoleResponses.redirect("/console/transactions/\(merchant.id)/\(recorded.id)")
            }
            claim = taken
        case .replay(_, let body):
            return ConsoleResponses.redirect("/console/transactions/\(merchant.id)/\(String(decoding: body.copyToArray(), as: UTF8.self))")
        case .mismatch, .responseDestroyed:
            return try await refusedAgain("This confirmation was already used: review the \(action.rawValue) again and confirm it.", .conflict)
        case .inProgress:
            return try await refusedAgain("This \(action.rawValue) is being sent by an earlier submit of the same form: reload the transaction.", .conflict)
        }
        do {
            let actor = signed.account.actor
            let childID = claim.transactionID
            let done: Transaction =
                switch action {
                case .capture: try await services.transactions.capture(id: transaction.id, amount: minor, merchant: merchant, actor: actor, childID: childID)
                case .void: try await services.transactions.void(id: transaction.id, amount: nil, merchant: merchant, actor: actor, childID: childID)
                case .refund: try await services.transactions.refund(id: transaction.id, amount: minor, merchant: merchant, actor: actor, childID: childID)
                }
            try await idempotency.complete(claim, status: 201, body: Array(done.id.utf8))
            return ConsoleResponses.redirect("/console/transactions/\(merchant.id)/\(done.id)")
        } catch let error as TransactionError {
            // A follow-up the gateway declined, or whose answer was lost, is recorded: a resubmit
            // shows it instead of sending again. One refused before any gateway call frees the key.
            switch error {
            case .declined(let recorded), .gatewayFailed(let recorded):
                try? await idempotency.complete(claim, status: 201, body: Array(recorded.id.utf8))
            default:
                try? await idempotency.release(claim)
            }
            let message: String =
                switch error {
                case .invalid(_, _, let message), .notAllowed(_, let message), .notPermitted(_, let message): message
                case .declined: "The gateway declined the \(action.rawValue)."
                case .notFound: "The transaction is not there any more."
                default: "The \(action.rawValue) did not go through: \(error)."
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

extension TransactionsScreen {
    /// What the merchant's set-up allows to be reversed of `transaction` now; the gateway is asked
    /// whether it reverses part of a payment only when that could matter.
    func reversal(of transaction: Transaction, merchant: Merchant, now: Date = Date()) async -> ReversalOptions {
        var policy = ReversalPolicy(window: services.transactions.reversalWindowLength, partialVoid: false)
        if transaction.allowsPartialVoid && now < transaction.voidableUntil(window: policy.window) {
            policy = await services.transactions.reversalPolicy(for: merchant)
        }
        return transaction.reversalOptions(policy, now: now)
    }

    /// The gateway's side of a transaction as the API answers it: the seed's state and sub-state
    /// codes, the reversal it allows now, and the gateway's own id and codes.
    static func gatewayFacts(_ transaction: Transaction, reversal: ReversalOptions) -> [(String, Markup)] {
        let (state, subState) = transaction.stateCodes
        var facts: [(String, Markup)] = [
            ("State", "\(state), sub-state \(subState)"),
            ("Reverse mode", "\(reversal.mode.rawValue)"),
        ]
        if let id = transaction.gatewayTransactionID { facts.append(("Gateway transaction", "<span class=\"mono\">\(id)</span>")) }
        if let code = transaction.responseCode { facts.append(("Response code", "\(code)")) }
        if let code = transaction.declineCode { facts.append(("Decline code", "\(code)")) }
        return facts
    }
}
