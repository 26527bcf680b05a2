extension BridgePayGateway {
    /// Every request carries an `InvoiceNum` derived from its own reference, so a charge, a refund,
    /// a void or a capture is found by its own reference as a charge is. A follow-up is always
    /// searched by its invoice number: a capture answers with its authorization's id, so a search
    /// by that id would find the authorization, whether or not it was captured. **Guess**: the find
    /// request searches settled and unsettled transactions of any age (BridgePay states no limit).
    public func lookup(_ query: GatewayLookupQuery) async -> GatewayLookup {
        switch query.kind {
        case .charge:
            await lookup(reference: query.reference, gatewayTransactionID: query.gatewayTransactionID)
        case let .capture(parent, _):
            await find(reference: query.reference, gatewayTransactionID: nil, capturedParent: parent)
        case .refund, .void:
            await lookup(reference: query.reference, gatewayTransactionID: nil)
        }
    }

    /// Finds a transaction with BridgeComm's find-transaction request (`023`): by the gateway
    /// transaction id when known, else by the invoice number we sent (`InvoiceNum`, derived from
    /// `reference`). The PayGuardian guide's find request takes exactly these (`invoiceNumber`,
    /// `gatewayTransID`); `TransactionCode` is "Reserved for future use" and is not searched.
    ///
    /// "Transaction not found" (`800011`) is `notFound`; "more than one result" (`80003`), "data
    /// unavailable" (`80007`) and every other failure are `unavailable`: absence is not proven.
    public func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        await find(reference: reference, gatewayTransactionID: gatewayTransactionID, capturedParent: nil)
    }

    /// The find request; `capturedParent`: a capture's authorization, which the capture's invoice
    /// number finds (a capture answers with its authorization's id and invoice).
    func find(reference: String, gatewayTransactionID: String?, capturedParent: String?) async -> GatewayLookup {
        let invoice = BridgePayInvoiceNumber.of(reference)
        var fields: [(String, String)] = []
        if let id = gatewayTransactionID, !id.isEmpty {
            fields.append((BridgePayWire.findByGatewayIDElement, id))
        } else {
            fields.append((BridgePayWire.findByInvoiceElement, invoice))
        }
        let exchange = await post(requestType: BridgePayWire.findTransaction, transactionID: "F" + invoice, fields: fields)
        let body: [UInt8]
        switch exchange.lookupBody {
        case .success(let bytes): body = bytes
        case .failure(let unavailable): return .unavailable(unavailable.reason)
        }
        guard let reply = BridgePayReply.parse(body) else { return .unavailable("unreadable_response") }
        return Self.lookupResult(reply, invoice: gatewayTransactionID == nil ? invoice : nil, capturedParent: capturedParent)
    }

    /// Reads a find-transaction reply. The found transaction's own result is its
    /// `GatewayResult` (its `ResponseCode` when that is absent); a found transaction whose
    /// `InvoiceNum` is not the one asked for is not ours, unless it is the authorization a capture
    /// asked about captured.
    static func lookupResult(_ reply: BridgePayReply, invoice: String?, capturedParent: String? = nil) -> GatewayLookup {
        switch reply.responseCode {
        case BridgePayCodes.success:
            let isCapturedParent = capturedParent != nil && reply.value("GatewayTransID") == capturedParent
            if let invoice, let echoed = reply.value("InvoiceNum"), echoed != invoice, !isCapturedParent {
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
