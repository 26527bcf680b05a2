/// Maps Authorize.Net response codes and response reason codes to normalized outcomes.
///
/// `transactionResponse.responseCode`: 1 approved, 2 declined, 3 error, 4 held for review.
/// The reason code (first `errors[].errorCode`, else `messages[].code`) says why; the table
/// follows Authorize.Net's response reason code list (see `NOTES.md`).
enum AuthorizeNetCodes {
    /// The reason code of a duplicate submission within the duplicate window.
    static let duplicate = "11"

    /// Card-data problems and declines, by reason code (some arrive with response code 3).
    static let declines: [String: (code: String, category: DeclineCategory)] = [
        "2": ("generic_decline", .soft),
        "3": ("call_issuer", .soft),
        "4": ("pickup_card", .hard),
        "6": ("invalid_number", .hard),
        "7": ("invalid_expiry", .hard),
        "8": ("expired_card", .hard),
        "17": ("card_not_supported", .hard),
        "27": ("avs_mismatch", .hard),
        "28": ("card_not_supported", .hard),
        "37": ("invalid_number", .hard),
        "41": ("fraudulent", .hard),
        "44": ("invalid_cvv", .hard),
        "45": ("avs_cvv_mismatch", .hard),
        "65": ("invalid_cvv", .hard),
        "78": ("invalid_cvv", .hard),
        "127": ("avs_mismatch", .hard),
        "250": ("fraudulent", .hard),
        "251": ("fraudulent", .hard),
        "254": ("fraudulent", .hard),
        "315": ("invalid_number", .hard),
        "316": ("invalid_expiry", .hard),
        "317": ("expired_card", .hard),
    ]

    /// Errors that are not card declines, by reason code: retryable ones said "try again".
    static let errors: [String: (code: String, retryable: Bool)] = [
        "5": ("invalid_amount", false),
        "13": ("authentication_failed", false),
        "16": ("transaction_not_found", false),
        "19": ("processing_error", true),
        "20": ("processing_error", true),
        "21": ("processing_error", true),
        "22": ("processing_error", true),
        "23": ("processing_error", true),
        "25": ("processing_error", true),
        "26": ("processing_error", true),
        "33": ("invalid_request", false),
        "39": ("unsupported_currency", false),
        "47": ("amount_exceeds_authorized", false),
        "54": ("not_refundable", false),
        "55": ("amount_exceeds_refundable", false),
        "57": ("processing_error", true),
        "58": ("processing_error", true),
        "59": ("processing_error", true),
        "60": ("processing_error", true),
        "61": ("processing_error", true),
        "62": ("processing_error", true),
        "63": ("processing_error", true),
        "310": ("transaction_voided", false),
        "311": ("already_captured", false),
    ]

    /// Reason codes whose charge may have gone through: the gateway's own void of a timed-out or
    /// failed authorization failed (120 timed out, 121 and 122 errored, 181 invalid response code),
    /// so the authorization may stand. Never retryable: in doubt, settled by lookup (or review).
    static let inDoubtReasons: Set<String> = ["120", "121", "122", "181"]

    /// Top-level `messages.message[].code` errors when there is no transaction response.
    static let apiErrors: [String: (code: String, retryable: Bool)] = [
        "E00001": ("processing_error", true),
        "E00007": ("authentication_failed", false),
        "E00008": ("merchant_inactive", false),
        "E00011": ("access_denied", false),
        "E00040": ("transaction_not_found", false),
    ]

    /// The outcome of a transaction response with a readable `responseCode`, or `nil` when the
    /// code is missing or unknown (the caller treats that as unreadable).
    static func outcome(responseCode: String?, reasonCode: String?) -> GatewayResult.Outcome? {
        let reason = reasonCode ?? ""
        switch responseCode {
        case "1":
            return .approved
        case "2" where inDoubtReasons.contains(reason), "3" where inDoubtReasons.contains(reason):
            return .inDoubt(reason: "gateway_void_failed")
        case "2":
            let decline = declines[reason] ?? ("generic_decline", .soft)
            return .declined(code: decline.code, category: decline.category)
        case "3":
            if let decline = declines[reason] {
                return .declined(code: decline.code, category: decline.category)
            }
            let error = errors[reason] ?? ("gateway_error", false)
            return .error(code: error.code, retryable: error.retryable)
        case "4":
            return .inDoubt(reason: "held_for_review")
        default:
            return nil
        }
    }

    /// The outcome of a reply that has only top-level messages (authentication, schema errors).
    static func apiErrorOutcome(_ code: String?) -> GatewayResult.Outcome {
        let error = code.flatMap { apiErrors[$0] } ?? ("invalid_request", false)
        return .error(code: error.code, retryable: error.retryable)
    }

    /// Transaction statuses (reporting API) of approved transactions, as far as money goes.
    static let approvedStatuses: Set<String> = [
        "authorizedPendingCapture", "capturedPendingSettlement", "settledSuccessfully", "refundPendingSettlement",
        "refundSettledSuccessfully", "approvedReview", "voided", "pendingFinalSettlement", "pendingSettlement",
        "updatingSettlement", "authorizedPendingRelease",
    ]

    /// Transaction statuses that are still under fraud review.
    static let reviewStatuses: Set<String> = ["FDSPendingReview", "FDSAuthorizedPendingReview", "underReview"]
}
