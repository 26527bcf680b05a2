/// Maps Authorize.Net response codes and response reason codes to normalized outcomes.
///
/// `transactionResponse.responseCode`: 1 approved, 2 declined, 3 error, 4 held for review.
/// The reason code (first `errors[].errorCode`, else `messages[].code`) says why; the table
/// follows Authorize.Net's response reason code list (see `NOTES.md`).
enum AuthorizeNetCodes {
    /// The reason code of a duplicate submission within the duplicate window.
    static let duplicate = "11"
    /// "This transaction has already been voided." — sent with response code 1.
    static let alreadyVoided = "310"
    /// "This transaction has already been captured." — sent with response code 1.
    static let alreadyCaptured = "311"

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

    /// The code of credentials the gateway refuses: a permanent error (decline category `error`),
    /// settled and never re-sent, since every request fails the same way until an operator fixes
    /// the merchant's credentials.
    static let authenticationFailed = "gateway_authentication_failed"

    /// Transaction reason code 13: "The merchant login ID or password is invalid or the account
    /// is inactive."
    static let authenticationReasons: Set<String> = ["13"]

    /// Top-level codes of refused credentials: E00005 (transaction key invalid or missing), E00006
    /// (API login invalid or missing), E00007 ("User authentication failed due to invalid
    /// authentication values"), E00008 (account or API user inactive), E00010 and E00011 (the user
    /// lacks the permissions).
    static let authenticationCodes: Set<String> = ["E00005", "E00006", "E00007", "E00008", "E00010", "E00011"]

    /// Top-level `messages.message[].code` errors that are not a refusal of the request itself:
    /// retryable ones ("try again", "server too busy", "maintenance") and the merchant's
    /// configuration (credentials, account state: fixed by the operator, then sent again after
    /// a lookup). Codes from Authorize.Net's response code list,
    /// https://developer.authorize.net/api/reference/responseCodes.html.
    static let apiErrors: [String: (code: String, retryable: Bool)] = [
        "E00001": ("processing_error", true),
        "E00002": ("unsupported_content_type", false),
        "E00009": ("test_mode", false),
        "E00053": ("server_busy", true),
        "E00104": ("server_maintenance", true),
    ]

    /// Names for the top-level errors that refuse the request itself (E00003 schema/parse
    /// error, E00013-E00016 a refused field, E00027 unsuccessful, E00040 no such record, ...);
    /// any other `E` code is such a refusal too (settled, never re-sent).
    static let refusals: [String: String] = [
        "E00003": "invalid_request",
        "E00013": "invalid_field",
        "E00014": "missing_field",
        "E00015": "invalid_field_length",
        "E00016": "invalid_field_type",
        "E00027": "transaction_unsuccessful",
        "E00040": "transaction_not_found",
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
            if authenticationReasons.contains(reason) { return .declined(code: authenticationFailed, category: .error) }
            let error = errors[reason] ?? ("gateway_error", false)
            if !error.retryable {
                // The gateway refused this request (a field, an amount, a state): settled.
                return .declined(code: error.code, category: .error)
            }
            return .error(code: error.code, retryable: error.retryable)
        case "4":
            return .inDoubt(reason: "held_for_review")
        default:
            return nil
        }
    }

    /// The outcome of a reply that has only top-level messages (authentication, schema errors):
    /// refused credentials (``authenticationCodes``) are a permanent `gateway_authentication_failed`;
    /// retryable and configuration errors come from ``apiErrors``; every other code is a permanent
    /// refusal of the request (decline category `error`).
    static func apiErrorOutcome(_ code: String?) -> GatewayResult.Outcome {
        if let code, authenticationCodes.contains(code) { return .declined(code: authenticationFailed, category: .error) }
        if let code, let error = apiErrors[code] {
            return .error(code: error.code, retryable: error.retryable)
        }
        return .declined(code: code.flatMap { refusals[$0] } ?? "invalid_request", category: .error)
    }

    /// Transaction statuses (`transactionStatusEnum` of `AnetApiSchema.xsd`) of money collected:
    /// authorized, captured, settling or settled (and, for a refund, the refund itself).
    static let collectedStatuses: Set<String> = [
        "authorizedPendingCapture", "capturedPendingSettlement", "settledSuccessfully", "approvedReview",
        "pendingFinalSettlement", "pendingSettlement", "updatingSettlement", "authorizedPendingRelease",
        "refundPendingSettlement", "refundSettledSuccessfully",
    ]

    /// Statuses of a capture having happened (the authorization's own status moves on to these).
    static let capturedStatuses: Set<String> = [
        "capturedPendingSettlement", "settledSuccessfully", "pendingFinalSettlement", "pendingSettlement", "updatingSettlement",
    ]

    /// Statuses of no money collected, whatever the transaction's original response code: voided,
    /// an authorization that expired uncaptured, settlement or processing errors, a void that
    /// failed, a decline, a fraud review that rejected it. `declined` takes its reason code's decline.
    static let notCollectedStatuses: [String: (code: String, category: DeclineCategory)] = [
        "voided": ("transaction_voided", .hard),
        "expired": ("authorization_expired", .soft),
        "settlementError": ("settlement_error", .soft),
        "couldNotVoid": ("could_not_void", .soft),
        "generalError": ("processing_error", .soft),
        "failedReview": ("failed_review", .hard),
        "declined": ("generic_decline", .soft),
    ]

    /// Transaction statuses that are still under fraud review.
    static let reviewStatuses: Set<String> = ["FDSPendingReview", "FDSAuthorizedPendingReview", "underReview"]

    /// The in-doubt reason prefix of a transaction held for review (`held_for_review: <status>`):
    /// the reconciler sends one held too long to operator review.
    static let heldForReview = "held_for_review"

    /// The outcome of a transaction by its reporting status: collected is approved, not collected
    /// is a decline, held for review is in doubt (`held_for_review: <status>`), any other status
    /// (`communicationError`, `returnedItem`, `chargeback`, one not in the schema) is in doubt.
    static func outcome(status: String, responseCode: String?, reasonCode: String?) -> GatewayResult.Outcome {
        if collectedStatuses.contains(status) { return .approved }
        if reviewStatuses.contains(status) { return .inDoubt(reason: "\(heldForReview): \(status)") }
        if status == "declined", case let .declined(code, category)? = outcome(responseCode: "2", reasonCode: reasonCode) {
            return .declined(code: code, category: category)
        }
        if let decline = notCollectedStatuses[status] { return .declined(code: decline.code, category: decline.category) }
        return .inDoubt(reason: "transaction_status: \(status)")
    }
}
