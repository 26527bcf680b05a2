extension GatewayAdapter {
    /// Whether ``GatewayAdapter/void(_:)`` may reverse part of a transaction (a partial reversal,
    /// `CANCEL_PARTIAL`): a ``FollowUpRequest/amount`` below what remains releases only that amount.
    /// False by default: the gateway voids the whole transaction, and a partial reversal is refused
    /// before any call (refund instead).
    public var supportsPartialVoid: Bool { false }

    /// Whether ``GatewayAdapter/verify(_:)`` verifies with a small authorization that it voids at
    /// once (rather than the gateway's zero-amount account verification). A verification whose
    /// answer was lost and that the reconciler later finds approved holds funds on the card until it
    /// is voided, so the reconciler voids it. False by default.
    public var verificationHoldsFunds: Bool { false }
}
