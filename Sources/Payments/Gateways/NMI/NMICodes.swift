/// Maps NMI `response` / `response_code` values to normalized outcomes.
///
/// `response`: 1 approved, 2 declined, 3 error. `response_code` (the "result code table" of the
/// Direct Post API) says why; see `NOTES.md`.
enum NMICodes {
    /// Declines by `response_code`.
    static let declines: [String: (code: String, category: DeclineCategory)] = [
        "200": ("generic_decline", .soft),
        "201": ("do_not_honor", .soft),
        "202": ("insufficient_funds", .soft),
        "203": ("over_limit", .soft),
        "204": ("transaction_not_allowed", .hard),
        "220": ("incorrect_payment_information", .hard),
        "221": ("no_such_issuer", .hard),
        "222": ("invalid_account", .hard),
        "223": ("expired_card", .hard),
        "224": ("invalid_expiry", .hard),
        "225": ("invalid_cvv", .hard),
        "240": ("call_issuer", .soft),
        "250": ("pickup_card", .hard),
        "251": ("lost_card", .hard),
        "252": ("stolen_card", .hard),
        "253": ("fraudulent", .hard),
        "260": ("declined_with_instructions", .soft),
        "261": ("stop_all_recurring", .hard),
        "262": ("stop_recurring", .hard),
        "263": ("update_cardholder_data", .hard),
        "264": ("try_again_later", .soft),
        "461": ("card_not_supported", .hard),
    ]

    /// Errors by `response_code`: retryable ones are transient (processor or network trouble);
    /// the others need a fix (configuration, request) before any retry.
    static let errors: [String: (code: String, retryable: Bool)] = [
        "410": ("invalid_merchant_configuration", false),
        "411": ("merchant_inactive", false),
        "430": ("duplicate_transaction", false),
        "440": ("processor_format_error", false),
        "441": ("invalid_transaction_information", false),
        "460": ("feature_not_available", false),
    ]

    /// Codes after which the charge may stand: a communication error between NMI and the processor
    /// (420) or the issuer (421), or an error the processor returned (400), may follow an approval
    /// that never came back. In doubt: never re-sent without a look-up by order id.
    static let inDoubt: [String: String] = [
        "400": "processor_error",
        "420": "communication_error",
        "421": "issuer_communication_error",
    ]

    /// The code of a refused security key: NMI answers `response=3`, `response_code=300`,
    /// "Authentication Failed". A permanent error (settled, never re-sent): every request with
    /// the same key fails the same way until an operator fixes it.
    static let authenticationFailed = "gateway_authentication_failed"

    /// Non-retryable errors that are the merchant's configuration (or a duplicate to reconcile),
    /// not the request: left unsettled, sent again after a lookup once fixed.
    static let configurationCodes: Set<String> = ["410", "411", "430"]

    /// The outcome for `response` and `response_code`, or `nil` when `response` is unreadable.
    ///
    /// `300` ("Transaction was rejected by gateway") is a permanent refusal of the request
    /// (settled, never re-sent), except NMI's duplicate check ("Duplicate transaction REFID:...",
    /// reconciled by lookup). `301` is NMI's Payment API rate limit
    /// (https://docs.nmi.dev/reference/rate-limiting): nothing processed, retry later.
    static func outcome(response: String?, responseCode: String?, responseText: String? = nil) -> GatewayResult.Outcome? {
        let code = responseCode ?? ""
        if response == "3" {
            switch code {
            case "300" where isDuplicate(responseCode: code, responseText: responseText):
                return .error(code: "duplicate_transaction", retryable: false)
            case "300" where responseText?.lowercased().hasPrefix("authentication failed") == true:
                return .declined(code: authenticationFailed, category: .error)
            case "300":
                return .declined(code: "gateway_rejected", category: .error)
            case "301":
                return .error(code: "rate_limited", retryable: true)
            default:
                break
            }
        }
        switch response {
        case "1":
            return .approved
        case "2":
            let decline = declines[code] ?? ("generic_decline", .soft)
            return .declined(code: decline.code, category: decline.category)
        case "3":
            if let decline = declines[code] {
                return .declined(code: decline.code, category: decline.category)
            }
            if let reason = inDoubt[code] { return .inDoubt(reason: reason) }
            let error = errors[code] ?? ("gateway_error", false)
            if !error.retryable, !configurationCodes.contains(code) {
                // Refused for what the request holds (format, transaction information): settled.
                return .declined(code: error.code, category: .error)
            }
            return .error(code: error.code, retryable: error.retryable)
        default:
            return nil
        }
    }

    /// The outcome of a failed action in a Query API reply, by its `response_code`.
    static func failedAction(responseCode: String?) -> GatewayResult.Outcome {
        if let code = responseCode, let reason = inDoubt[code] { return .inDoubt(reason: reason) }
        if let code = responseCode, let error = errors[code] { return .error(code: error.code, retryable: error.retryable) }
        return outcome(response: "2", responseCode: responseCode) ?? .inDoubt(reason: "unknown")
    }

    /// Whether an answer reports a duplicate (NMI's duplicate check, or the processor's 430).
    static func isDuplicate(responseCode: String?, responseText: String?) -> Bool {
        responseCode == "430" || (responseText?.lowercased().hasPrefix("duplicate transaction") ?? false)
    }
}
