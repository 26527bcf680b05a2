public import Foundation
public import Vault

extension NMIGateway {
    /// Finds a charge by ``lookup(reference:gatewayTransactionID:)`` (the Query API keeps every
    /// transaction, so no window applies), a refund of a parent transaction by
    /// ``lookupRefund(parentTransactionID:amount:since:)``, and a capture or void by the parent's
    /// actions (``lookupAction(_:parentTransactionID:amount:)``).
    public func lookup(_ query: GatewayLookupQuery) async -> GatewayLookup {
        switch query.kind {
        case .charge:
            await lookup(reference: query.reference, gatewayTransactionID: query.gatewayTransactionID)
        case let .refund(parent, amount):
            await lookupRefund(parentTransactionID: parent, amount: amount, since: query.since)
        case let .capture(parent, amount):
            await lookupAction("capture", parentTransactionID: parent, amount: amount)
        case let .void(parent):
            await lookupAction("void", parentTransactionID: parent, amount: nil)
        }
    }

    /// Finds a capture or a void of `parentTransactionID` among the parent's actions: NMI captures
    /// and voids a transaction in place (the Direct Post answer carries the parent's id) and the
    /// Query API lists every action of a transaction with its `success` and `response_code`. The
    /// query by `transaction_id` returns the parent as it is now, with its whole history, so no
    /// action of that type (of `amount`, when given) is `notFound`; a parent missing from the
    /// answer is `unavailable`.
    public func lookupAction(_ type: String, parentTransactionID: String, amount: Money?) async -> GatewayLookup {
        guard !parentTransactionID.isEmpty else { return .unavailable("parent_unknown") }
        let exchange = await http.post(url: queryURL, contentType: "application/x-www-form-urlencoded",
                                       body: requests.query(reference: "", transactionID: parentTransactionID))
        let body: [UInt8]
        switch exchange.lookupBody {
        case .success(let bytes): body = bytes
        case .failure(let unavailable): return .unavailable(unavailable.reason)
        }
        return Self.actionLookupResult(xml: body, type: type, parentTransactionID: parentTransactionID,
                                       amount: amount.map(NMIRequests.amount))
    }

    /// Reads a Query API reply for an action (`capture`, `void`) of `parentTransactionID`: a
    /// successful one is found approved, else a failed one with its code, else `notFound`.
    static func actionLookupResult(xml body: [UInt8], type: String, parentTransactionID: String, amount: String?) -> GatewayLookup {
        guard let root = MiniXML.parse(body), root.name == "nm_response" else { return .unavailable("unreadable_response") }
        if root.child("error_response") != nil { return .unavailable("query_error") }
        guard let parent = root.children(named: "transaction").first(where: { $0.value("transaction_id") == parentTransactionID }) else {
            return .unavailable("parent_not_found")
        }
        let actions = parent.children(named: "action").filter {
            $0.value("action_type") == type && (amount == nil || $0.value("amount") == amount)
        }
        guard let match = actions.first(where: { $0.value("success") == "1" }) ?? actions.last else { return .notFound }
        let responseCode = match.value("response_code")
        let outcome: GatewayResult.Outcome = match.value("success") == "1" ? .approved : NMICodes.failedAction(responseCode: responseCode)
        return .found(GatewayResult(outcome: outcome, transactionID: parentTransactionID,
                                    authCode: parent.value("authorization_code"), responseCode: responseCode,
                                    responseText: match.value("response_text")))
    }

    /// Finds a refund of `parentTransactionID`: the Query API is asked for the refunds
    /// (`action_type=refund`) since the attempt (a day earlier, for clocks), and a refund is the
    /// parent's when its `original_transaction_id` is the parent (a refund is a transaction of its
    /// own) or when it is a `refund` action of the parent itself. One of `amount` (any when nil)
    /// decides: a successful one is found approved, else a failed one, else `notFound`.
    public func lookupRefund(parentTransactionID: String, amount: Money?, since: Date) async -> GatewayLookup {
        let start = Self.queryDate(since.addingTimeInterval(-86_400))
        let exchange = await http.post(url: queryURL, contentType: "application/x-www-form-urlencoded",
                                       body: requests.refundQuery(since: start))
        let body: [UInt8]
        switch exchange.lookupBody {
        case .success(let bytes): body = bytes
        case .failure(let unavailable): return .unavailable(unavailable.reason)
        }
        return Self.refundLookupResult(xml: body, parentTransactionID: parentTransactionID, amount: amount?.decimalString)
    }

    /// `YYYYMMDDhhmmss` in UTC, the Query API's date format.
    static func queryDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02d%02d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// Reads a Query API reply for a refund of `parentTransactionID`.
    static func refundLookupResult(xml body: [UInt8], parentTransactionID: String, amount: String?) -> GatewayLookup {
        guard let root = MiniXML.parse(body), root.name == "nm_response" else { return .unavailable("unreadable_response") }
        if root.child("error_response") != nil { return .unavailable("query_error") }
        var refunds: [(id: String?, action: MiniXML.Element)] = []
        for transaction in root.children(named: "transaction") {
            let own = transaction.value("original_transaction_id") == parentTransactionID
            let parent = transaction.value("transaction_id") == parentTransactionID
            guard own || parent else { continue }
            for action in transaction.children(named: "action")
            where action.value("action_type") == "refund" && (amount == nil || action.value("amount") == amount) {
                refunds.append((own ? transaction.value("transaction_id") : parentTransactionID, action))
            }
        }
        guard let match = refunds.first(where: { $0.action.value("success") == "1" }) ?? refunds.last else { return .notFound }
        let responseCode = match.action.value("response_code")
        let outcome: GatewayResult.Outcome
        outcome = match.action.value("success") == "1" ? .approved : NMICodes.failedAction(responseCode: responseCode)
        return .found(GatewayResult(outcome: outcome, transactionID: match.id, responseCode: responseCode,
                                    responseText: match.action.value("response_text")))
    }

    /// Finds a transaction with NMI's Query API: by `transaction_id` when known, else by the
    /// `order_id` we sent as `reference`. Several transactions with one order id (retries)
    /// prefer an approved one.
    public func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        let exchange = await http.post(url: queryURL, contentType: "application/x-www-form-urlencoded",
                                       body: requests.query(reference: reference, transactionID: gatewayTransactionID))
        let body: [UInt8]
        switch exchange.lookupBody {
        case .success(let bytes): body = bytes
        case .failure(let unavailable): return .unavailable(unavailable.reason)
        }
        return Self.lookupResult(xml: body, reference: reference, transactionID: gatewayTransactionID)
    }

    /// Reads a Query API reply.
    static func lookupResult(xml body: [UInt8], reference: String, transactionID: String?) -> GatewayLookup {
        guard let root = MiniXML.parse(body), root.name == "nm_response" else {
            return .unavailable("unreadable_response")
        }
        if root.child("error_response") != nil {
            return .unavailable("query_error")
        }
        let matches = root.children(named: "transaction").filter { transaction in
            if let transactionID, !transactionID.isEmpty {
                return transaction.value("transaction_id") == transactionID
            }
            return transaction.value("order_id") == reference
        }
        let results = matches.map(result(of:))
        guard let best = results.first(where: \.isApproved) ?? results.last else { return .notFound }
        return .found(best)
    }

    /// The charge action types whose success decides a transaction's outcome.
    static let chargeActions: Set<String> = ["sale", "auth", "validate", "credit", "refund", "capture"]

    /// A transaction element as a result: its first charge action decides, else its condition.
    static func result(of transaction: MiniXML.Element) -> GatewayResult {
        let action = transaction.children(named: "action").first {
            chargeActions.contains($0.value("action_type") ?? "")
        }
        let responseCode = action?.value("response_code")
        var outcome: GatewayResult.Outcome
        if let action {
            outcome = action.value("success") == "1" ? .approved : NMICodes.failedAction(responseCode: responseCode)
            // Approved, then voided: no money collected.
            if outcome == .approved, transaction.value("condition") == "canceled" {
                outcome = .declined(code: "transaction_voided", category: .hard)
            }
        } else {
            switch transaction.value("condition") {
            case "pending", "pendingsettlement", "complete": outcome = .approved
            case "canceled": outcome = .declined(code: "transaction_voided", category: .hard)
            case "failed", "abandoned": outcome = .declined(code: "generic_decline", category: .soft)
            default: outcome = .inDoubt(reason: "in_progress")
            }
        }
        // NMI refers later merchant-initiated charges to the first use by its own transaction id,
        // as the direct answer does.
        return GatewayResult(outcome: outcome, transactionID: transaction.value("transaction_id"),
                             authCode: transaction.value("authorization_code"), responseCode: responseCode,
                             responseText: action?.value("response_text"), avsResult: transaction.value("avs_response"),
                             cvvResult: transaction.value("csc_response"),
                             networkTransactionID: outcome == .approved ? transaction.value("transaction_id") : nil)
    }
}
