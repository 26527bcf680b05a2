extension AuthorizeNetGateway {
    /// Finds a transaction: by `getTransactionDetailsRequest` when its id is known, otherwise
    /// (or when that id is unknown to the gateway) by searching the unsettled transactions
    /// (`getUnsettledTransactionListRequest`, newest first, up to 5,000) for the invoice number
    /// we sent as `reference`, then reading the match's details.
    ///
    /// Needs the Transaction Details API enabled for the merchant. Settled transactions are not
    /// in the unsettled list, so a lookup by reference alone should run soon after the attempt
    /// (the charge runner settles in-doubt attempts on its next run).
    public func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        if let gatewayTransactionID, !gatewayTransactionID.isEmpty, gatewayTransactionID != "0" {
            let byID = await details(transactionID: gatewayTransactionID)
            if case .notFound = byID {} else { return byID }
        }
        var page = 1
        var best: AuthorizeNetResponses.TransactionSummary?
        while page <= Self.maximumLookupPages {
            let exchange = await http.post(url: endpoint, contentType: "application/json",
                                           body: requests.unsettledTransactions(page: page))
            guard case let .response(200, body) = exchange else { return .unavailable(Self.reason(exchange)) }
            guard let list = AuthorizeNetResponses.decode(AuthorizeNetResponses.TransactionList.self, from: body) else {
                return .unavailable("unreadable_response")
            }
            if list.messages?.resultCode == "Error" {
                return .unavailable(list.messages?.message.first?.code ?? "error")
            }
            for summary in list.transactions where summary.invoiceNumber == reference {
                if let current = best, Self.rank(current) >= Self.rank(summary) { continue }
                best = summary
            }
            let total = list.totalNumInResultSet ?? list.transactions.count
            if list.transactions.count < AuthorizeNetRequests.pageSize || page * AuthorizeNetRequests.pageSize >= total {
                break
            }
            page += 1
        }
        guard let transactionID = best?.transId else { return .notFound }
        return await details(transactionID: transactionID)
    }

    /// What `getTransactionDetailsRequest` answered.
    enum DetailsRecord {
        case found(AuthorizeNetResponses.TransactionDetails)
        case notFound
        case unavailable(String)
    }

    /// One transaction's details as sent by the gateway.
    func detailsRecord(transactionID: String) async -> DetailsRecord {
        let exchange = await http.post(url: endpoint, contentType: "application/json",
                                       body: requests.transactionDetails(transactionID: transactionID))
        guard case let .response(200, body) = exchange else { return .unavailable(Self.reason(exchange)) }
        guard let reply = AuthorizeNetResponses.decode(AuthorizeNetResponses.TransactionDetailsReply.self, from: body) else {
            return .unavailable("unreadable_response")
        }
        guard let details = reply.transaction, reply.messages?.resultCode != "Error" else {
            let code = reply.messages?.message.first?.code
            return code == "E00040" ? .notFound : .unavailable(code ?? "unreadable_response")
        }
        return .found(details)
    }

    /// One transaction's details as a result.
    func details(transactionID: String) async -> GatewayLookup {
        let details: AuthorizeNetResponses.TransactionDetails
        switch await detailsRecord(transactionID: transactionID) {
        case let .found(record): details = record
        case .notFound: return .notFound
        case let .unavailable(reason): return .unavailable(reason)
        }
        let outcome: GatewayResult.Outcome
        if let status = details.transactionStatus, AuthorizeNetCodes.reviewStatuses.contains(status) {
            outcome = .inDoubt(reason: "held_for_review")
        } else if let mapped = AuthorizeNetCodes.outcome(responseCode: details.responseCode,
                                                         reasonCode: details.responseReasonCode) {
            outcome = mapped
        } else {
            return .unavailable("unreadable_response")
        }
        return .found(GatewayResult(outcome: outcome, transactionID: details.transId ?? transactionID,
                                    authCode: details.authCode, responseCode: details.responseReasonCode,
                                    responseText: details.responseReasonDescription, avsResult: details.avsResponse,
                                    cvvResult: details.cardCodeResponse))
    }

    /// Approved charges first, then those under review, then the rest.
    static func rank(_ summary: AuthorizeNetResponses.TransactionSummary) -> Int {
        guard let status = summary.transactionStatus else { return 0 }
        if AuthorizeNetCodes.approvedStatuses.contains(status) { return 2 }
        return AuthorizeNetCodes.reviewStatuses.contains(status) ? 1 : 0
    }

    static func reason(_ exchange: HTTPExchange) -> String {
        switch exchange {
        case let .notSent(reason), let .lost(reason): reason
        case let .response(status, _): "http_\(status)"
        }
    }
}
