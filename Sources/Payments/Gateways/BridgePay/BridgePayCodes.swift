/// Maps BridgeComm's 5-digit `ResponseCode` (docs "Gateway Result Codes") and, when that code
/// is not in the table, the 3-character gateway message code at the start of `GatewayMessage`
/// (docs "Gateway Message Codes": `A01 - Approved`, `D03 ...`) to normalized outcomes.
enum BridgePayCodes {
    /// Approved.
    static let success = "00000"
    /// Partially approved: only part of the amount was authorized. The adapter never asks for
    /// partial authorization, so this is not expected; the money held is not what was asked, so
    /// it is left in doubt for an operator rather than called approved or declined.
    static let partialApproval = "00001"
    /// Duplicate transaction (the message code is `D09`).
    static let duplicate = "30036"
    /// The in-doubt reason of a duplicate answer whose original the find request did not show.
    static let duplicateInDoubt = "duplicate_transaction"
    /// Find transaction: "Transaction not found".
    static let transactionNotFound = "800011"
    /// Find transaction: "More than one result found for search criteria".
    static let moreThanOneResult = "80003"
    /// Find transaction: "Database query processing error ... if the data requested is unavailable".
    static let dataUnavailable = "80007"

    /// Issuer and gateway declines by `ResponseCode`.
    static let declines: [String: (code: String, category: DeclineCategory)] = [
        "30032": ("do_not_honor", .soft),            // Denied by customer's bank
        "30033": ("insufficient_funds", .soft),
        "30042": ("over_limit", .soft),               // maximum transaction limit; try tomorrow
        "30043": ("try_again_later", .soft),          // re-enter transaction
        "30044": ("generic_decline", .soft),          // unmapped decline
        "30072": ("call_issuer", .soft),              // call for authorization
        "30077": ("generic_decline", .soft),          // rejected by the processor
        "30034": ("pickup_card", .hard),
        "30035": ("incorrect_payment_information", .hard), // incorrect PIN
        "30037": ("lost_card", .hard),
        "30038": ("stolen_card", .hard),
        "30039": ("transaction_not_allowed", .hard),  // service not allowed
        "30040": ("stop_recurring", .hard),
        "30073": ("transaction_not_allowed", .hard),  // card is restricted
        "30074": ("fraudulent", .hard),               // declined due to fraud rules
        "30076": ("incorrect_payment_information", .hard),
        "30078": ("invalid_account", .hard),          // account closed
        "30079": ("invalid_account", .hard),
        "30012": ("invalid_number", .hard),           // bad card number (from gateway)
        "30023": ("invalid_number", .hard),
        "30024": ("invalid_account", .hard),          // no account
        "30025": ("invalid_cvv", .hard),
        "10002": ("invalid_number", .hard),
        "10003": ("card_not_supported", .hard),       // doesn't match accepted card types
        "10007": ("invalid_number", .hard),
        "10008": ("invalid_number", .hard),           // invalid length for card type
        "10009": ("expired_card", .hard),
        "10012": ("invalid_number", .hard),           // failed mod 10
        "10013": ("invalid_expiry", .hard),
        "10017": ("invalid_expiry", .hard),
        "10018": ("invalid_expiry", .hard),
        "10019": ("invalid_expiry", .hard),
        "10010": ("invalid_cvv", .hard),
        "10014": ("invalid_cvv", .hard),
    ]

    /// Errors by `ResponseCode` after which nothing was charged: retryable ones are the
    /// gateway's or network's transient trouble.
    static let retryableErrors: [String: String] = [
        "20001": "tokenization_unavailable",
        "20003": "service_unavailable",
        "30022": "processing_network_unavailable",
        "10052": "processing_network_error",
        "80001": "gateway_unavailable",
    ]

    /// Codes after which the request may have been processed: an internal error or timeout at
    /// the gateway. Never re-sent; found later by the find-transaction request.
    static let inDoubt: [String: String] = [
        "20002": "gateway_internal_error",
        "20004": "gateway_timeout",
        "30005": "invalid_response_message",
        "30029": "transaction_error",
        "99999": "unknown_error",
        partialApproval: "partial_approval",
    ]

    /// Refused credentials (docs "Gateway Result Codes": 10023 password expired, 10024 invalid
    /// credentials, 80009 invalid `MerchantCode`, 800010 invalid `MerchantAccountCode`): a permanent
    /// error `gateway_authentication_failed`, settled and never re-sent, since every request fails
    /// the same way until an operator fixes the merchant's credentials.
    static let authenticationErrors: Set<String> = ["10023", "10024", "80009", "800010"]

    /// The code of refused credentials.
    static let authenticationFailed = "gateway_authentication_failed"

    /// The outcome of an answer. A code in none of the tables decides by its message code
    /// (`A` approved, `D` generic soft decline, `X02` pending in doubt). Anything else is a
    /// permanent refusal of this request (`10xxx` field errors, `30004` invalid request message,
    /// ...): decline category `error`, settled once and never sent again. A duplicate answer is in
    /// doubt (a charge of this card and amount exists).
    static func outcome(responseCode: String?, gatewayMessage: String?) -> GatewayResult.Outcome {
        let code = responseCode ?? ""
        if code == success { return .approved }
        if let decline = declines[code] { return .declined(code: decline.code, category: decline.category) }
        if let error = retryableErrors[code] { return .error(code: error, retryable: true) }
        if let reason = inDoubt[code] { return .inDoubt(reason: reason) }
        if code == duplicate { return .inDoubt(reason: duplicateInDoubt) }
        if authenticationErrors.contains(code) { return .declined(code: authenticationFailed, category: .error) }
        switch messageCode(gatewayMessage)?.first {
        case "A": return code.isEmpty ? .approved : .inDoubt(reason: "unrecognized_approval")
        case "D": return .declined(code: "generic_decline", category: .soft)
        case "X": return .inDoubt(reason: "pending")
        default:
            if code.isEmpty { return .error(code: "gateway_error", retryable: false) }
            return .declined(code: "gateway_rejected", category: .error)
        }
    }

    /// The 3-character code at the start of `GatewayMessage` (`A01`, `D09`, `E02`), if any.
    static func messageCode(_ gatewayMessage: String?) -> String? {
        guard let text = gatewayMessage?.trimmingASCIISpaces(), text.utf8.count >= 3 else { return nil }
        let prefix = text.prefix(3)
        guard let letter = prefix.first, letter.isASCII, letter.isLetter, prefix.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        return String(prefix).uppercased()
    }

    /// Whether an answer reports a duplicate transaction.
    static func isDuplicate(responseCode: String?, gatewayMessage: String?) -> Bool {
        responseCode == duplicate || messageCode(gatewayMessage) == "D09"
    }
}
