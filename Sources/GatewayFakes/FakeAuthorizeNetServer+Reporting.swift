import Synchronization

extension FakeAuthorizeNetServer {
    /// Handles `getUnsettledTransactionListRequest`: newest first, paged.
    func unsettledList(_ request: FakeJSON) -> FakeJSON {
        let limit = request["paging"]?["limit"]?.text.flatMap { Int($0) } ?? 1_000
        let offset = request["paging"]?["offset"]?.text.flatMap { Int($0) } ?? 1
        guard (1...1_000).contains(limit), offset >= 1 else {
            return Self.apiError("E00003", "The paging values are invalid.")
        }
        let all = state.withLock { state in
            state.transactions.values.filter { $0.status != "settledSuccessfully" }.sorted { $0.sequence > $1.sequence }
        }
        let page = all.dropFirst((offset - 1) * limit).prefix(limit)
        var members: [(String, FakeJSON)] = []
        if !page.isEmpty {
            members.append(("transactions", .array(page.map { transaction in
                .object([
                    ("transId", .string(transaction.transId)),
                    ("submitTimeUTC", .string("2030-01-01T10:00:00Z")),
                    ("submitTimeLocal", .string("2030-01-01T04:00:00")),
                    ("transactionStatus", .string(transaction.status)),
                    ("invoiceNumber", .string(transaction.invoiceNumber ?? "")),
                    ("accountType", .string("Visa")),
                    ("accountNumber", .string("XXXX" + transaction.last4)),
                    ("settleAmount", .number(transaction.amountText)),
                    ("marketType", .string("eCommerce")),
                    ("product", .string("Card Not Present")),
                ])
            })))
        }
        members.append(("totalNumInResultSet", .number(String(all.count))))
        members.append(("messages", Self.okMessages(all.isEmpty ? ("I00004", "No records found.") : ("I00001", "Successful."))))
        return .object(members)
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
            ("settleAmount", .number(transaction.amountText)),
            ("taxExempt", .bool(false)),
            ("payment", .object([("creditCard", .object([("cardNumber", .string("XXXX" + transaction.last4)),
                                                          ("expirationDate", .string("XXXX")),
                                                          ("cardType", .string("Visa"))]))])),
            ("recurringBilling", .bool(false)),
            ("product", .string("Card Not Present")),
            ("marketType", .string("eCommerce")),
        ]
        return .object([("transaction", .object(members)),
                        ("messages", Self.okMessages(("I00001", "Successful.")))])
    }

    static func okMessages(_ message: (String, String)) -> FakeJSON {
        .object([("resultCode", .string("Ok")),
                 ("message", .array([.object([("code", .string(message.0)), ("text", .string(message.1))])]))])
    }
}
