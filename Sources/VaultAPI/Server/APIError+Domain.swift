import Foundation
import Hummingbird
public import Scheduler
public import Vault

extension CardDataError: APIErrorConvertible {
    /// 422 naming the field; the message never repeats the card data.
    public var apiError: APIError {
        .invalid(message, code: code, param: field)
    }
}

extension SecureCardError: APIErrorConvertible {
    /// The HTTP status of each refusal.
    public var apiError: APIError {
        switch self {
        case .notFound:
            return .notFound("secure card", param: "merchantReference")
        case .referenceTaken(let reference):
            return .conflict("A live secure card with merchantReference '\(reference)' already exists.", code: "merchant_reference_taken",
                             param: "merchantReference")
        case .inUse(let ids):
            return .conflict(
                "Active schedules use this card (\(ids.joined(separator: ", "))); cancel them first or pass cancelSchedules=true.",
                code: "card_in_use", param: "cancelSchedules")
        case .verificationDeclined(let code, let category):
            return APIError(
                status: .init(code: 402, reasonPhrase: "Payment Required"), type: "card_error", code: code,
                message: "The gateway declined the card on verification (\(category) decline: \(code)).", param: "card")
        case .verificationUnavailable:
            return APIError(
                status: .badGateway, type: "api_error", code: "gateway_unavailable",
                message: "The gateway could not verify the card right now; nothing was stored. Retry later.")
        case .purged:
            return .conflict("This card's data was purged; register the card again.", code: "card_purged", param: "merchantReference")
        case .integrityFailed:
            return .conflict(
                "This card's stored record failed its integrity check (it was altered); it is not used. Register the card again.",
                code: "card_integrity_failed", param: "merchantReference")
        }
    }
}

extension MerchantError: APIErrorConvertible {
    /// Merchant errors only reach the API as missing objects.
    public var apiError: APIError { .notFound("merchant") }
}

extension ScheduleError: APIErrorConvertible {
    /// 422 for rule violations, 404 for missing objects, 409 for lifecycle conflicts.
    public var apiError: APIError {
        switch self {
        case .invalid(let field, let rule, let message):
            return .invalid(message, code: rule, param: field)
        case .notFound(let what):
            return .notFound(what, param: "id")
        case .wrongStatus(let current, let operation):
            return .conflict("The schedule is \(current.rawValue); \(operation.replacingOccurrences(of: "schedule.", with: "")) is not allowed now.",
                             code: "invalid_schedule_status", param: "status")
        case .stepNotSkippable(let status):
            return .conflict("Only a future scheduled step can be skipped; this one is \(status.rawValue).", code: "step_not_skippable", param: "stepId")
        case .stepChanged(let stepID):
            return .conflict(
                "Step \(stepID) is being charged by a charge run; nothing was changed. Read the schedule again and retry once the run has settled it.",
                code: "step_being_charged", param: "stepId")
        case .storedCredentialMissing(let reference, let merchantReference):
            let card = merchantReference ?? reference
            return .conflict(
                "The card \(card) has no customer-initiated first use of its current number on file with the merchant's gateway, so its "
                    + "scheduled charges would have nothing to refer to, and the gateway's verification gave none. With the customer "
                    + "present, send the card again with verification (PATCH /v1/secure-cards/\(card) with the card data and "
                    + "\"verify\": true) or register it by a sale, then confirm again.",
                code: "stored_credential_missing", param: "secureCardReference")
        case .integrityFailed:
            return .conflict(
                "This schedule's stored record failed its integrity check (it was altered); it is not changed and never charged. "
                    + "Cancel it and create it again.",
                code: "schedule_integrity_failed", param: "id")
        }
    }
}

extension PlanValidationError: APIErrorConvertible {
    /// 422 naming the plan field and the rule.
    public var apiError: APIError {
        .invalid(message, code: rule, param: field)
    }
}

extension CaptureSessionError: APIErrorConvertible {
    /// The merchant's read of another merchant's or no session is a 404; a refused submission a 401.
    public var apiError: APIError {
        switch self {
        case .notFound: .notFound("capture session", param: "id")
        case .refused: .captureRefused
        }
    }
}

extension ReceiptsNotConfigured: APIErrorConvertible {
    /// 422 `receipts_not_configured` naming the field that asked for an e-mail receipt: the vault
    /// has no usable mail program or sender, so it accepts no address it could not write to.
    public var apiError: APIError {
        .invalid(description, code: "receipts_not_configured", param: field)
    }
}
