/// Told of every call an adapter built by ``GatewayRegistry`` makes: which gateway, which operation,
/// how it ended and how long it took. The composition root turns this into metrics; Payments
/// itself records nothing.
///
/// `outcome` is `approved`, `declined`, `error` or `in_doubt` for a transaction operation, and
/// `found`, `not_found` or `unavailable` for a lookup. Never a card number, amount or credential.
public protocol GatewayCallObserver: Sendable {
    /// One finished call.
    func gatewayCall(gateway: String, operation: String, outcome: String, duration: Duration)
}

/// An adapter that reports each call to a ``GatewayCallObserver`` and otherwise is the adapter it wraps.
struct ObservedGateway: GatewayAdapter {
    let base: any GatewayAdapter
    let observer: any GatewayCallObserver

    var name: String { base.name }
    var supportsCredit: Bool { base.supportsCredit }
    var supportsPartialVoid: Bool { base.supportsPartialVoid }
    var verificationHoldsFunds: Bool { base.verificationHoldsFunds }

    func sale(_ request: ChargeRequest) async -> GatewayResult { await observe("sale") { await base.sale(request) } }
    func authorize(_ request: ChargeRequest) async -> GatewayResult { await observe("authorize") { await base.authorize(request) } }
    func capture(_ request: FollowUpRequest) async -> GatewayResult { await observe("capture") { await base.capture(request) } }
    func void(_ request: FollowUpRequest) async -> GatewayResult { await observe("void") { await base.void(request) } }
    func refund(_ request: FollowUpRequest) async -> GatewayResult { await observe("refund") { await base.refund(request) } }
    func verify(_ request: ChargeRequest) async -> GatewayResult { await observe("verify") { await base.verify(request) } }
    func credit(_ request: ChargeRequest) async -> GatewayResult { await observe("credit") { await base.credit(request) } }

    func lookup(reference: String, gatewayTransactionID: String?) async -> GatewayLookup {
        await observeLookup { await base.lookup(reference: reference, gatewayTransactionID: gatewayTransactionID) }
    }

    func lookup(_ query: GatewayLookupQuery) async -> GatewayLookup {
        await observeLookup { await base.lookup(query) }
    }

    private func observe(_ operation: String, _ call: () async -> GatewayResult) async -> GatewayResult {
        let started = ContinuousClock.now
        let result = await call()
        observer.gatewayCall(gateway: base.name, operation: operation, outcome: Self.outcome(result.outcome), duration: ContinuousClock.now - started)
        return result
    }

    private func observeLookup(_ call: () async -> GatewayLookup) async -> GatewayLookup {
        let started = ContinuousClock.now
        let found = await call()
        let outcome = switch found {
        case .found: "found"
        case .notFound: "not_found"
        case .unavailable: "unavailable"
        }
        observer.gatewayCall(gateway: base.name, operation: "lookup", outcome: outcome, duration: ContinuousClock.now - started)
        return found
    }

    /// The outcome's name without its code (a bounded label set).
    static func outcome(_ outcome: GatewayResult.Outcome) -> String {
        switch outcome {
        case .approved: "approved"
        case .declined(_, let category) where category == .error: "error"
        case .declined: "declined"
        case .error: "error"
        case .inDoubt: "in_doubt"
        }
    }
}
