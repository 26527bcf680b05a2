/// The sandbox's test card numbers and what each one does: Stripe's public test numbers for the
/// approval and the declines, and numbers of the same shape (Luhn-valid, `4000 0000 0000 ....`)
/// for every other path a real gateway can take, so a merchant can watch the vault settle each on
/// the default set-up.
public enum SandboxTestCard: String, Sendable, CaseIterable {
    /// Approves.
    case approved = "4242424242424242"
    /// Declines: `card_declined`, hard.
    case cardDeclined = "4000000000000002"
    /// Declines: `insufficient_funds`, soft.
    case insufficientFunds = "4000000000009995"
    /// Declines: `expired_card`, hard.
    case expiredCard = "4000000000000069"
    /// Declines: `processing_error`, soft.
    case processingError = "4000000000000119"
    /// The gateway refuses the request itself (a permanent error, as Authorize.Net's `E00003` or
    /// NMI's `300`): decline category `error`, `invalid_request`; no transaction is made, and the
    /// same request can never succeed.
    case permanentError = "4000000000000309"
    /// The gateway is rate limiting (HTTP 429 with `Retry-After: 1`): a retryable `rate_limited`
    /// error; nothing is processed or recorded.
    case rateLimited = "4000000000004293"
    /// The charge is held for the gateway's fraud review (Authorize.Net's response code 4, Stripe's
    /// elevated-risk card): recorded, answered in doubt with reason `held_for_review`, and a
    /// look-up finds it the same way until someone decides.
    case heldForReview = "4000000000004954"
    /// The gateway charges the card, then the answer is lost on the way back: the ledger has an
    /// approved charge, the caller gets in doubt (`timeout`), and a look-up finds it approved.
    case answerLostAfterCharging = "4000000000005043"
    /// The request is lost before the gateway processes it: nothing is recorded, the caller gets
    /// in doubt (`timeout`), and a look-up proves the charge absent.
    case answerLostBeforeCharging = "4000000000005035"
    /// The gateway charges the card, the answer is lost, and the gateway's records of it cannot be
    /// searched (its reporting is down): the caller gets in doubt and every look-up is unavailable,
    /// so after the grace period the transaction goes to operator review (`needs_review`).
    case answerLostRecordsUnsearchable = "4000000000006975"
    /// The gateway answers that the card's processor did not answer in time (ISO 8583 `91`,
    /// issuer or switch inoperative): a retryable `processor_timeout` error; nothing is charged
    /// or recorded, so a look-up proves the charge absent.
    case processorTimeout = "4000000000000911"

    /// The card number.
    public var number: String { rawValue }

    /// What a charge of this card does.
    public var path: SandboxCardPath {
        if let decline { return .declines(decline) }
        switch self {
        case .permanentError: return .refused
        case .rateLimited: return .rateLimited
        case .heldForReview: return .heldForReview
        case .answerLostAfterCharging: return .answerLostAfterCharging
        case .answerLostBeforeCharging: return .answerLostBeforeCharging
        case .answerLostRecordsUnsearchable: return .answerLostRecordsUnsearchable
        case .processorTimeout: return .processorTimeout
        default: return .approves
        }
    }

    /// The decline this card triggers, or `nil` for a card that does not decline.
    public var decline: SandboxDecline? {
        switch self {
        case .cardDeclined: SandboxDecline(code: "card_declined", category: .hard, responseCode: "05",
                                           text: "Your card was declined.")
        case .insufficientFunds: SandboxDecline(code: "insufficient_funds", category: .soft, responseCode: "51",
                                                text: "Your card has insufficient funds.")
        case .expiredCard: SandboxDecline(code: "expired_card", category: .hard, responseCode: "54",
                                          text: "Your card has expired.")
        case .processingError: SandboxDecline(code: "processing_error", category: .soft, responseCode: "96",
                                              text: "An error occurred while processing your card. Try again.")
        default: nil
        }
    }

    /// The decline triggered by a card number; `nil` for every card that does not decline.
    public static func decline(forNumber digits: String) -> SandboxDecline? {
        SandboxTestCard(rawValue: digits)?.decline
    }

    /// What a charge of a card number does (any number that is not a test card approves).
    public static func path(forNumber digits: String) -> SandboxCardPath {
        SandboxTestCard(rawValue: digits)?.path ?? .approves
    }
}

/// What a charge of a test card does at the sandbox.
public enum SandboxCardPath: Sendable, Equatable {
    /// Approved.
    case approves
    /// Declined by the issuer.
    case declines(SandboxDecline)
    /// Refused by the gateway itself: settled, never sent again.
    case refused
    /// Rate limited: nothing processed; retry after the time the answer names.
    case rateLimited
    /// Recorded and held for review: in doubt, found in doubt by a look-up.
    case heldForReview
    /// Charged, answer lost: in doubt, found approved by a look-up.
    case answerLostAfterCharging
    /// Lost before processing: in doubt, proven absent by a look-up.
    case answerLostBeforeCharging
    /// Charged, answer lost, records unsearchable: in doubt, every look-up unavailable.
    case answerLostRecordsUnsearchable
    /// The processor did not answer: a retryable error, nothing charged.
    case processorTimeout
}

/// A decline the sandbox answers with.
public struct SandboxDecline: Sendable, Equatable {
    /// The normalized decline code.
    public var code: String
    /// Hard or soft.
    public var category: DeclineCategory
    /// An ISO 8583-style response code, as card networks use them.
    public var responseCode: String
    /// Human-readable text.
    public var text: String
}
