public import Foundation

/// Which reversal a transaction allows now (cancel, partial cancel, return, partial return or
/// none), so a portal shows the right button without re-deriving the rules.
public enum ReverseMode: String, Sendable, Codable, CaseIterable {
    /// Nothing can be reversed: declined, failed, in doubt, already voided or refunded in full, an
    /// authorization never captured whose reversal window has passed, or a follow-up itself.
    case none
    /// A void (cancellation) of the whole remaining amount, within the reversal window.
    case cancel
    /// A void of all or part of the remaining amount (the merchant's gateway reverses part of a
    /// transaction), within the reversal window.
    case cancelPartial = "cancel_partial"
    /// A refund of what remains (a single minor unit: a partial refund is not possible).
    case `return` = "return"
    /// A refund of all or part of what remains.
    case returnPartial = "return_partial"
}

/// What a merchant's set-up allows for reversals: how long after its authorization a payment may
/// be voided, and whether the merchant's gateway can reverse only part of a transaction.
public struct ReversalPolicy: Sendable, Equatable {
    /// The reversal window (`reversals.windowHours`).
    public var window: TimeInterval
    /// ``GatewayAdapter/supportsPartialVoid`` of the merchant's gateway.
    public var partialVoid: Bool

    /// Creates a policy.
    public init(window: TimeInterval, partialVoid: Bool) {
        self.window = window
        self.partialVoid = partialVoid
    }
}

/// What can still be reversed of one transaction, derived from its type, status and amounts in
/// this one place (the follow-up checks, the transaction JSON and the docs agree by construction).
///
/// A partial reversal (a void of part of a sale, or of part of an uncaptured authorization) adds
/// to ``Transaction/voidedAmount`` and leaves the status as it was (`approved`): the remaining
/// amount, `amount - voidedAmount`, is what later voids, captures and refunds may take. When the
/// voids reach the whole amount the status becomes `voided`.
public struct ReversalOptions: Sendable, Equatable {
    /// The reversal the transaction allows now.
    public var mode: ReverseMode
    /// Minor units a refund may still return (0 when none may).
    public var refundableAmount: Int64
    /// Minor units a void would reverse now, ignoring the window (0 when it cannot be voided).
    public var voidableAmount: Int64
    /// The first instant a void is refused (the reversal window's end), for a transaction that can
    /// be voided apart from the clock; nil otherwise.
    public var voidableUntil: Date?
}

extension Transaction {
    /// Minor units a refund may still return: the rest of an approved sale (less partial reversals
    /// and refunds), the captured part of an authorization less its refunds; 0 for anything else.
    public var refundableAmount: Int64 {
        switch (type, status) {
        case (.sale, .approved), (.sale, .partiallyRefunded):
            max(0, amount - voidedAmount - refundedAmount)
        case (.authorize, .captured), (.authorize, .partiallyRefunded):
            max(0, capturedAmount - refundedAmount)
        default:
            0
        }
    }

    /// Minor units a void would reverse, ignoring the window: what remains of an approved sale or
    /// authorization (captured or not) that was never refunded; 0 for anything else. A capture is
    /// voided through its authorization, which carries this amount.
    public var voidableAmount: Int64 {
        guard [.sale, .authorize].contains(type), [.approved, .captured].contains(status), refundedAmount == 0 else { return 0 }
        return max(0, amount - voidedAmount)
    }

    /// Whether part of ``voidableAmount`` may be voided, apart from the gateway's ability: a sale,
    /// or an authorization not yet captured (a captured one is voided whole, or refunded in part).
    public var allowsPartialVoid: Bool {
        voidableAmount > 1 && (type == .sale || (type == .authorize && status == .approved))
    }

    /// The reversal window of this transaction under `window`: from its creation (its authorization).
    public func voidableUntil(window: TimeInterval) -> Date {
        createdAt.addingTimeInterval(window)
    }

    /// The reversal this transaction allows at `now` under `policy`, with the amounts behind it. A
    /// void (cheaper for the merchant than a refund) is offered while the window is open; a refund after.
    public func reversalOptions(_ policy: ReversalPolicy, now: Date) -> ReversalOptions {
        let voidable = voidableAmount
        let refundable = refundableAmount
        let until = voidable > 0 ? voidableUntil(window: policy.window) : nil
        let mode: ReverseMode
        if let until, now < until {
            mode = policy.partialVoid && allowsPartialVoid ? .cancelPartial : .cancel
        } else if refundable > 0 {
            mode = refundable > 1 ? .returnPartial : .return
        } else {
            mode = .none
        }
        return ReversalOptions(mode: mode, refundableAmount: refundable, voidableAmount: voidable, voidableUntil: until)
    }
}
