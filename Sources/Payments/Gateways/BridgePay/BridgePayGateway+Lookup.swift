extension BridgePayGateway {
    /// Every request carries an `InvoiceNum` derived from its own reference, so a charge, a refund,
    /// a void or a capture is found by its own reference as a charge is. **Guess**: the find
    /// request searches settled and unsettled transactions of any age (BridgePay states no limit).
    public func lookup(_ query: GatewayLookupQuery) async -> GatewayLookup {
        await lookup(reference: query.reference, gatewayTransactionID: query.gatewayTransactionID)
    }

    /// Finds a transaction with BridgeComm's find-transaction request (`023`): by the gateway
    /// transaction id when known, else by the invoice number we sent (`InvoiceNum`, derived from
    /// `reference`). The seed's find request takes exactly these (`invoiceNumber`,
    /// `gatewayTransID`); `TransactionCode` is "Reserved for future use" and is not searched.
    ///
    /// "Transaction not found" (`800011`) is `notFound`; "more than one result" (`80003`), "data
    /// unavailable" (`80007`) and every other failure are `unavailable`: absence is not proven.
    public func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        let invoice = BridgePayInvoiceNumber.of(reference)
        var fields: [(String, String)] = []
        if let id = gatewayTransactionID, !id.isEmpty {
            fields.append((BridgePayWire.findByGatewayIDElement, id))
        } else {
            fields.append((BridgePayWire.findByInvoiceElement, invoice))
        }
        let exchange = await post(requestType: BridgePayWire.findTransaction, transactionID: "F" + invoice, fields: fields)
        let body: [UInt8]
        switch exchange {
        case let .notSent(reason), let .lost(reason):
            return .unavailable(reason)
        case let .response(status, bytes, _):
            guard status == 200 else { return .unavailable("http_\(status)") }
            body = bytes
        }
        guard let reply = BridgePayReply.parse(body) else { return .unavailable("unreadable_response") }
        return Self.lookupResult(reply, invoice: gatewayTransactionID == nil ? invoice : nil)
    }

    /// Reads a find-transaction reply. The found transaction's own result is its
    /// `GatewayResult` (its `ResponseCode` when that is absent); a found transaction whose
    /// `InvoiceNum` is not the one asked for is not ours.
    static func lookupResult(_ reply: BridgePayReply, invoice: String?) -> GatewayLookup {
        switch reply.responseCode {
        case BridgePayCodes.success:
            if let invoice, let echoed = reply.value("InvoiceNum"), echoed != invoice {
                return .unavailable("invoice_mismatch")
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
