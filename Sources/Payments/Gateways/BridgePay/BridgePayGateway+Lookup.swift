extension BridgePayGateway {
    /// Charges and refunds alike: every request carries a `TransactionID` derived from its own
    /// reference, so a refund is found by its reference as a charge is. **Guess**: the find
    /// request searches settled and unsettled transactions of any age (BridgePay states no limit).
    public func lookup(_ query: GatewayLookupQuery) async -> GatewayLookup {
        await lookup(reference: query.reference, gatewayTransactionID: query.gatewayTransactionID)
    }

    /// Finds a transaction with BridgeComm's find-transaction request (`023`): by the gateway
    /// transaction id when known (`ReferenceNumber`), else by the `TransactionID` we sent with the
    /// charge (derived from `reference`, echoed by BridgePay as `TransactionCode`).
    ///
    /// "Transaction not found" (`800011`) is `notFound`; "more than one result" (`80003`), "data
    /// unavailable" (`80007`) and every other failure are `unavailable`: absence is not proven.
    public func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        let code = BridgePayInvoiceNumber.of(reference)
        var fields: [(String, String)] = []
        if let id = gatewayTransactionID, !id.isEmpty {
            fields.append((BridgePayWire.findByReferenceElement, id))
        } else {
            fields.append((BridgePayWire.findByTransactionCodeElement, code))
        }
        let exchange = await post(requestType: BridgePayWire.findTransaction, transactionID: "F" + code, fields: fields)
        let body: [UInt8]
        switch exchange {
        case let .notSent(reason), let .lost(reason):
            return .unavailable(reason)
        case let .response(status, bytes, _):
            guard status == 200 else { return .unavailable("http_\(status)") }
            body = bytes
        }
        guard let reply = BridgePayReply.parse(body) else { return .unavailable("unreadable_response") }
        return Self.lookupResult(reply, transactionCode: gatewayTransactionID == nil ? code : nil)
    }

    /// Reads a find-transaction reply. The found transaction's own result is its
    /// `GatewayResult` (its `ResponseCode` when that is absent); a found transaction whose
    /// `TransactionCode` is not the one asked for is not ours.
    static func lookupResult(_ reply: BridgePayReply, transactionCode: String?) -> GatewayLookup {
        switch reply.responseCode {
        case BridgePayCodes.success:
            if let transactionCode, let echoed = reply.value("TransactionCode"), echoed != transactionCode {
                return .unavailable("transaction_code_mismatch")
            }
            let code = reply.value("GatewayResult") ?? reply.value("ResponseCode")
            return .found(result(of: reply, responseCode: code))
        case BridgePayCodes.transactionNotFound:
            return .notFound
        default:
            return .unavailable("find_\(reply.responseCode ?? "unknown")")
        }
    }
}
