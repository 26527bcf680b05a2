/// The sandbox's test card numbers (Stripe's public test numbers) and what each one does.
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

    /// The card number.
    public var number: String { rawValue }

    /// The decline this card triggers, or `nil` for the approving card.
    public var decline: SandboxDecline? {
        switch self {
        case .approved: nil
        case .cardDeclined: SandboxDecline(code: "card_declined", category: .hard, responseCode: "05",
                                           text: "Your card was declined.")
        case .insufficientFunds: SandboxDecline(code: "insufficient_funds", category: .soft, responseCode: "51",
                                                text: "Your card has insufficient funds.")
        case .expiredCard: SandboxDecline(code: "expired_card", category: .hard, responseCode: "54",
                                          text: "Your card has expired.")
        case .processingError: SandboxDecline(code: "processing_error", category: .soft, responseCode: "96",
                                              text: "An error occurred while processing your card. Try again.")
        }
    }

    /// The decline triggered by a card number; `nil` approves (any other valid number approves).
    public static func decline(forNumber digits: String) -> SandboxDecline? {
        SandboxTestCard(rawValue: digits)?.decline
    }
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
