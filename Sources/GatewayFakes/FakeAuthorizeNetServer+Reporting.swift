import Synchronization

extension FakeAuthorizeNetServer {
    /// Handles `getUnsettledTransactionListRequest`: newest first, paged.
    func unsettledList(_ request: FakeJSON) -> FakeJSON {
        let (ids, transactions) = state.withLock { state in
            (state.order.reversed().filter { state.batchOf[$0] == nil }, state.transactions)
        }
        return listReply(ids.lazy.compactMap { transactions[$0] }, request)
    }

    /// Handles `getTransactionDetailsRequest`.
    func transactionDetails(_ request: FakeJSON) -> FakeJSON {
        guard let id = request["transId"]?.text, let transaction = state.withLock({ $0.transactions[id] }) else {
            return Self.apiError("E00040", "The record cannot be found.")
        }
        var members: [(String, FakeJSON)] = [("transId", .string(transaction.transId))]
        if let refTransId = transaction.refTransId { members.append(("refTransId", .string(refTransId))) }
        members += [
            ("submitTimeUTC", .string("2030-01-01T10:00:00.0Z")),
            ("submitTimeLocal", .string("2030-01-01T04:00:00")),
            ("transactionType", .string(transaction.type)),
            ("transactionStatus", .string(transaction.status)),
            ("responseCode", .number(transaction.responseCode)),
            ("responseReasonCode", .number(transaction.reasonCode)),
            ("responseReasonDescription", .string(transaction.reasonCode == "1" ? "Approval" : transaction.reasonText)),
            ("authCode", .string(transaction.authCode)),
            ("AVSResponse", .string(transaction.avs)),
            ("cardCodeResponse", .string(transaction.cvv)),
            ("order", .object([("invoiceNumber", .string(transaction.invoiceNumber ?? ""))])),
            ("authAmount", .number(transaction.amountText)),
            // What was captured (an authorization not captured settles nothing).
            ("settleAmount", .number(Self.amountText(transaction.type == "authOnlyTransaction" ? transaction.captured : transaction.amount))),
            ("taxExempt", .bool(false)),
            ("payment", .object([("creditCard", .object([("cardNumber", .string("XXXX" + transaction.last4)),
                                                          ("expirationDate", .string("XXXX")),
                                                          ("cardType", .string("Visa"))]))])),
            ("recurringBilling", .bool(false)),
            ("product", .string("Card Not Present")),
            ("marketType", .string("eCommerce")),
        ]
        // transactionDetailsType carries networkTransId after the shipping and tax members (XSD order).
        if let network = transaction.networkTransId { members.append(("networkTransId", .string(network))) }
        return .object([("transaction", .object(members)),
                        ("messages", Self.okMessages(("I00001", "Successful.")))])
    }

    /// An amount in units of 0.0001 as the reporting API writes it, `12.34`.
    static func amountText(_ units: Int) -> String {
        let cents = (units % 10_000) / 100
        return "\(units / 10_000)." + (cents < 10 ? "0" : "") + String(cents)
    }

    static func okMessages(_ message: (String, String)) -> FakeJSON {
        .object([("resultCode", .string("Ok")),
                 ("message", .array([.object([("code", .string(message.0)), ("text", .string(message.1))])]))])
    }
}
