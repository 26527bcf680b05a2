import Vault

/// Builds NMI Direct Post (`/api/transact.php`) and Query API (`/api/query.php`) form bodies.
struct NMIRequests: Sendable {
    let credentials: NMICredentials

    /// `sale`, `auth` or `validate` with the full card. `validate` sends no amount. `resend`: the
    /// same attempt was sent before, so NMI's duplicate check stays on (no `dup_seconds`).
    func charge(type: String, _ request: ChargeRequest, amount: Money?, resend: Bool = false) -> [UInt8] {
        var fields: [(String, String)] = [("security_key", credentials.securityKey), ("type", type)]
        if let amount {
            fields.append(("amount", Self.amount(amount)))
            fields.append(("currency", amount.currency.code))
        }
        fields.append(("ccnumber", request.card.pan.digits))
        fields.append(("ccexp", request.card.expiry.mmyy))
        if let cvv = request.card.cvv { fields.append(("cvv", cvv.digits)) }
        fields.append(("orderid", request.reference))
        if let description = request.description { fields.append(("order_description", description)) }
        if let name = request.card.holderName?.trimmingASCIISpaces(), !name.isEmpty {
            let words = name.split(separator: " ")
            if words.count > 1 { fields.append(("first_name", words.dropLast().joined(separator: " "))) }
            fields.append(("last_name", String(words[words.count - 1])))
        }
        if let zip = request.card.postalCode?.trimmingASCIISpaces(), !zip.isEmpty { fields.append(("zip", zip)) }
        if type != "validate", !resend { fields.append(("dup_seconds", Self.duplicateSeconds)) }
        if let use = request.storedCredential { fields.append(contentsOf: Self.storedCredentialFields(use)) }
        return Array(FormEncoding.encode(fields).utf8)
    }

    /// `dup_seconds=0` turns NMI's duplicate check off for charges: "Sets the time in seconds for
    /// duplicate transaction checking on supported processors. Set to 0 to disable duplicate
    /// checking" (https://support.nmi.com/hc/en-gb/articles/15002942676881-Duplicate-Transaction-Error).
    /// Its default (1,200 s on card + amount) would refuse the second of two different steps of
    /// the same amount on one card; exactly once is the vault's own machinery (an order id per
    /// attempt, looked up before any re-send). Sent only with an attempt's first send: a re-send of
    /// the same attempt keeps NMI's check on (``NMISentAttempts``). Honoured only when the merchant's processor allows
    /// the override; otherwise such a charge is answered "Duplicate transaction" and left for a
    /// later run (never settled as failed).
    static let duplicateSeconds = "0"

    /// NMI's credential-on-file fields: the first use is customer-initiated and stores the
    /// credential; a customer paying with the stored card uses it; a scheduled charge is
    /// merchant-initiated, `billing_method=recurring`, with the first use's transaction id as
    /// `initial_transaction_id` when one is on file.
    static func storedCredentialFields(_ use: StoredCredentialUse) -> [(String, String)] {
        switch use {
        case .initial:
            [("initiated_by", "customer"), ("stored_credential_indicator", "stored")]
        case .customerInitiated:
            [("initiated_by", "customer"), ("stored_credential_indicator", "used")]
        case let .recurring(original):
            [("billing_method", "recurring"), ("initiated_by", "merchant"), ("stored_credential_indicator", "used")]
                + (original.map { [("initial_transaction_id", $0)] } ?? [])
        }
    }

    /// The amount as NMI documents it, `x.xx` (``GatewayPreChecks/amountString(_:)``).
    static func amount(_ amount: Money) -> String {
        NMIGateway.preChecks.amountString(amount)
    }

    /// `capture`, `void` or `refund` of a transaction id; the amount when given.
    func followUp(type: String, _ request: FollowUpRequest) -> [UInt8] {
        var fields: [(String, String)] = [("security_key", credentials.securityKey), ("type", type),
                                          ("transactionid", request.gatewayTransactionID)]
        if let amount = request.amount, type != "void" { fields.append(("amount", Self.amount(amount))) }
        return Array(FormEncoding.encode(fields).utf8)
    }

    /// A Query API search for refunds (`action_type=refund`) since `start_date` (`YYYYMMDDhhmmss`, UTC).
    func refundQuery(since: String) -> [UInt8] {
        Array(FormEncoding.encode([("security_key", credentials.securityKey), ("action_type", "refund"),
                                   ("start_date", since)]).utf8)
    }

    /// A Query API search by order id, or by transaction id when known.
    func query(reference: String, transactionID: String?) -> [UInt8] {
        var fields: [(String, String)] = [("security_key", credentials.securityKey)]
        if let transactionID, !transactionID.isEmpty {
            fields.append(("transaction_id", transactionID))
        } else {
            fields.append(("order_id", reference))
        }
        return Array(FormEncoding.encode(fields).utf8)
    }
}
