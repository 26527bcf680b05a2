public import Vault

extension NMIGateway {
    /// Finds a charge by ``lookup(reference:gatewayTransactionID:)`` (the Query API keeps every
    /// transaction, so no window applies), or a refund of a parent transaction by
    /// ``lookupRefund(parentTransactionID:amount:)``.
    public func lookup(_ query: GatewayLookupQuery) async -> GatewayLookup {
        switch query.kind {
        case .charge:
            await lookup(reference: query.reference, gatewayTransactionID: query.gatewayTransactionID)
        case let .refund(parent, amount):
            await lookupRefund(parentTransactionID: parent, amount: amount)
        }
    }

    /// Finds a refund: NMI refunds act on the parent transaction, so the Query API is asked for
    /// the parent (`transaction_id`) with `action_type=refund`, and the parent's `refund` actions
    /// are read; one of `amount` (any amount when nil) decides. A successful one is `found`
    /// (approved), else a failed one (its response code), else `notFound`.
    public func lookupRefund(parentTransactionID: String, amount: Money?) async -> GatewayLookup {
        let exchange = await http.post(url: queryURL, contentType: "application/x-www-form-urlencoded",
                                       body: requests.refundQuery(parentTransactionID: parentTransactionID))
        let body: [UInt8]
        switch exchange {
        case let .notSent(reason), let .lost(reason):
            return .unavailable(reason)
        case let .response(status, bytes):
            guard status == 200 else { return .unavailable("http_\(status)") }
            body = bytes
        }
        return Self.refundLookupResult(xml: body, parentTransactionID: parentTransactionID, amount: amount?.decimalString)
    }

    /// Reads a Query API reply for a refund of `parentTransactionID`.
    static func refundLookupResult(xml body: [UInt8], parentTransactionID: String, amount: String?) -> GatewayLookup {
        guard let root = MiniXML.parse(body), root.name == "nm_response" else { return .unavailable("unreadable_response") }
        if root.child("error_response") != nil { return .unavailable("query_error") }
        let parents = root.children(named: "transaction").filter { $0.value("transaction_id") == parentTransactionID }
        let refunds = parents.flatMap { $0.children(named: "action") }.filter { action in
            action.value("action_type") == "refund" && (amount == nil || action.value("amount") == amount)
        }
        guard let action = refunds.first(where: { $0.value("success") == "1" }) ?? refunds.last else { return .notFound }
        let responseCode = action.value("response_code")
        let outcome: GatewayResult.Outcome
        if action.value("success") == "1" {
            outcome = .approved
        } else if let code = responseCode, let error = NMICodes.errors[code] {
            outcome = .error(code: error.code, retryable: error.retryable)
        } else {
            outcome = NMICodes.outcome(response: "2", responseCode: responseCode) ?? .inDoubt(reason: "unknown")
        }
        return .found(GatewayResult(outcome: outcome, transactionID: parentTransactionID, responseCode: responseCode,
                                    responseText: action.value("response_text")))
    }

    /// Finds a transaction with NMI's Query API: by `transaction_id` when known, else by the
    /// `order_id` we sent as `reference`. Several transactions with one order id (retries)
    /// prefer an approved one.
    public func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        let exchange = await http.post(url: queryURL, contentType: "application/x-www-form-urlencoded",
                                       body: requests.query(reference: reference, transactionID: gatewayTransactionID))
        let body: [UInt8]
        switch exchange {
        case let .notSent(reason), let .lost(reason):
            return .unavailable(reason)
        case let .response(status, bytes):
            guard status == 200 else { return .unavailable("http_\(status)") }
            body = bytes
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
        let outcome: GatewayResult.Outcome
        if let action {
            if action.value("success") == "1" {
                outcome = .approved
            } else if let code = responseCode, let error = NMICodes.errors[code] {
                outcome = .error(code: error.code, retryable: error.retryable)
            } else {
                outcome = NMICodes.outcome(response: "2", responseCode: responseCode) ?? .inDoubt(reason: "unknown")
            }
        } else {
            switch transaction.value("condition") {
            case "pending", "pendingsettlement", "complete", "canceled": outcome = .approved
            case "failed", "abandoned": outcome = .declined(code: "generic_decline", category: .soft)
            default: outcome = .inDoubt(reason: "in_progress")
            }
        }
        return GatewayResult(outcome: outcome, transactionID: transaction.value("transaction_id"),
                             authCode: transaction.value("authorization_code"), responseCode: responseCode,
                             responseText: action?.value("response_text"), avsResult: transaction.value("avs_response"),
                             cvvResult: transaction.value("csc_response"))
    }
}
