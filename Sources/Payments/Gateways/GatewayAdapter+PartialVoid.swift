extension GatewayAdapter {
    /// Whether ``GatewayAdapter/void(_:)`` may reverse part of a transaction (a partial reversal,
    /// the seed's `CANCEL_PARTIAL`): a ``FollowUpRequest/amount`` below what remains releases only
    /// that amount. False by default: the gateway voids the whole transaction, and a partial
    /// reversal is refused before any call (refund instead).
    public var supportsPartialVoid: Bool { false }
}
