/// What a gateway knows about a charge looked up by the reference we sent with it.
public enum GatewayLookup: Sendable, Equatable {
    /// The gateway has the transaction; the result says how it ended (approved, declined, or
    /// still in doubt, e.g. held for review).
    case found(GatewayResult)
    /// The gateway has no transaction with that reference: the attempt never arrived. Only
    /// when the whole window since the attempt was searched (proof of absence).
    case notFound
    /// The gateway could not be asked (network, credentials, reporting API disabled), or the
    /// search could not cover the whole window: absence is not proven, so nothing may be sent again.
    case unavailable(String)
}

/// One payment gateway, spoken to through its own wire protocol.
///
/// Every operation carries an idempotency key and a reference. Adapters never throw: every
/// failure is a ``GatewayResult``, and a request that may have reached the gateway without an
/// answer is ``GatewayResult/Outcome/inDoubt(reason:)``, to be settled with
/// ``lookup(reference:gatewayTransactionID:)`` instead of being sent twice. Adapters never
/// log, print or put into a result any card number, CVV or credential.
public protocol GatewayAdapter: Sendable {
    /// The configured gateway name: `sandbox`, `authorizenet` or `nmi`.
    var name: String { get }
    /// Authorizes and captures in one step.
    func sale(_ request: ChargeRequest) async -> GatewayResult
    /// Authorizes only; ``capture(_:)`` collects the money later.
    func authorize(_ request: ChargeRequest) async -> GatewayResult
    /// Captures an earlier authorization, in full or in part.
    func capture(_ request: FollowUpRequest) async -> GatewayResult
    /// Cancels an authorization or an unsettled sale.
    func void(_ request: FollowUpRequest) async -> GatewayResult
    /// Returns money of a captured transaction, in full or in part, never above what remains.
    func refund(_ request: FollowUpRequest) async -> GatewayResult
    /// Checks that the card is good without charging it (amount may be zero); each adapter
    /// chooses the gateway's way: account validation, a zero-amount authorization, or a small
    /// authorization that is voided at once.
    func verify(_ request: ChargeRequest) async -> GatewayResult
    /// Whether ``credit(_:)`` reaches the gateway; false (the default) means this gateway takes no
    /// credits and the vault refuses them for merchants using it.
    var supportsCredit: Bool { get }
    /// Whether ``void(_:)`` reverses only the request's amount when it is below what remains
    /// (a partial reversal); false (the default) means a void always reverses the whole transaction.
    var supportsPartialVoid: Bool { get }
    /// Whether ``verify(_:)`` places a small authorization that it voids at once; the reconciler
    /// voids one it finds approved after the answer was lost.
    var verificationHoldsFunds: Bool { get }
    /// Returns money to a card without an earlier transaction at this gateway (a gateway
    /// `credit`, a "blind return"), by the gateway's refund-without-parent.
    func credit(_ request: ChargeRequest) async -> GatewayResult
    /// Finds the charge sent with `reference` (or the transaction `gatewayTransactionID`, when
    /// known), to settle an in-doubt attempt.
    func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup
    /// Finds an operation over the whole window since it was sent (``GatewayLookupQuery``);
    /// `notFound` only when the search covered all of it. The default searches charges with
    /// ``lookup(reference:gatewayTransactionID:)``.
    func lookup(_ query: GatewayLookupQuery) async -> GatewayLookup
}
