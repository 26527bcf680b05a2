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
        "300": ("gateway_rejected", false),
        "400": ("processor_error", true),
        "410": ("invalid_merchant_configuration", false),
        "411": ("merchant_inactive", false),
        "420": ("communication_error", true),
        "421": ("issuer_communication_error", true),
        "430": ("duplicate_transaction", false),
        "440": ("processor_format_error", false),
        "441": ("invalid_transaction_information", false),
        "460": ("feature_not_available", false),
    ]

    /// The outcome for `response` and `response_code`, or `nil` when `response` is unreadable.
    static func outcome(response: String?, responseCode: String?) -> GatewayResult.Outcome? {
        let code = responseCode ?? ""
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
            let error = errors[code] ?? ("gateway_error", false)
            return .error(code: error.code, retryable: error.retryable)
        default:
            return nil
        }
    }

    /// Whether an answer reports a duplicate (NMI's duplicate check, or the processor's 430).
    static func isDuplicate(responseCode: String?, responseText: String?) -> Bool {
        responseCode == "430" || (responseText?.lowercased().hasPrefix("duplicate transaction") ?? false)
    }
}
