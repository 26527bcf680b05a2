public import Foundation
public import Vault

/// What to look up at a gateway to settle an operation whose answer was lost.
///
/// `GatewayLookup.notFound` is an answer only when the gateway's records were searched over the
/// whole window since ``since``: an adapter that cannot search all of it (a reporting call failed,
/// a page limit was reached, the window reaches beyond what the gateway keeps) answers
/// `.unavailable`, so the caller never takes a partial search for proof of absence.
public struct GatewayLookupQuery: Sendable, Equatable {
    /// What was sent.
    public enum Kind: Sendable, Equatable {
        /// A charge (sale, authorization, verification) sent with ``GatewayLookupQuery/reference``.
        case charge
        /// A refund of the gateway transaction `parentTransactionID`, of `amount` (the whole
        /// remaining amount when nil).
        case refund(parentTransactionID: String, amount: Money?)
        /// A capture of the authorization `parentTransactionID`, of `amount`.
        case capture(parentTransactionID: String, amount: Money)
        /// A void (reversal) of the gateway transaction `parentTransactionID`.
        case void(parentTransactionID: String)
    }

    /// The reference (order/invoice number) sent with the operation.
    public var reference: String
    /// The gateway's id of the operation, when an answer carried one.
    public var gatewayTransactionID: String?
    /// When the operation was first sent: the search covers everything from then on.
    public var since: Date
    /// What was sent.
    public var kind: Kind

    /// Creates a query.
    public init(reference: String, gatewayTransactionID: String? = nil, since: Date, kind: Kind = .charge) {
        self.reference = reference
        self.gatewayTransactionID = gatewayTransactionID
        self.since = since
        self.kind = kind
    }
}

extension GatewayAdapter {
    /// The default for adapters whose search has no time window: a charge is looked up with
    /// ``lookup(reference:gatewayTransactionID:)``; a follow-up cannot be, and is `.unavailable`.
    public func lookup(_ query: GatewayLookupQuery) async -> GatewayLookup {
        switch query.kind {
        case .charge:
            await lookup(reference: query.reference, gatewayTransactionID: query.gatewayTransactionID)
        case .refund:
            .unavailable("refund_lookup_unsupported")
        case .capture:
            .unavailable("capture_lookup_unsupported")
        case .void:
            .unavailable("void_lookup_unsupported")
        }
    }
}
