/// An operator's answer for a transaction or a step in review (`needs_review`), after checking
/// with the gateway's own records.
public enum ReviewResolution: Sendable, Equatable {
    /// The customer was charged: the gateway's transaction id, recorded on the attempt.
    case charged(gatewayTransactionID: String)
    /// The customer was not charged (a step then falls due again under the retry policy).
    case notCharged
}
