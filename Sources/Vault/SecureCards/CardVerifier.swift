/// What a gateway said about a card it was asked to verify.
public enum CardVerificationResult: Sendable, Equatable {
    /// The card is good.
    case verified(CardVerificationRecord)
    /// The gateway refused the card.
    case declined(code: String, category: String)
    /// The gateway could not be asked (unreachable, misconfigured); nothing about the card is known.
    case unavailable(reason: String)
    /// The merchant's gateway cannot take this card (e.g. a 19-digit number on a 16-digit
    /// gateway); nothing was sent. Registration answers 422 naming `field`.
    case refused(field: String, code: String, message: String)
}

/// Verifies cards with the merchant's gateway (account verification, or a small authorization
/// voided at once). The CVV travels only into this call.
public protocol CardVerifier: Sendable {
    /// Verifies `card` for `merchant`. `secureCardReference` is the token of the card being
    /// registered, updated or first used: the card an approval's stored credential belongs to.
    func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult
}
