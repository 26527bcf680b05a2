/// How a charge uses a stored card (card-on-file), as the card networks' stored-credential rules
/// want it flagged: who initiated it, and whether the credential is being stored or used.
///
/// Adapters translate it into their own fields (Authorize.Net `processingOptions` and
/// `subsequentAuthInformation`; NMI `initiated_by`, `stored_credential_indicator`, `billing_method`,
/// `initial_transaction_id`). `nil` on a ``ChargeRequest`` means a one-off charge of a card that is
/// not stored.
public enum StoredCredentialUse: Sendable, Equatable, CustomStringConvertible {
    /// The customer is present and the card is being stored for later use (registration with
    /// verification, registration by sale): customer-initiated, credential stored.
    case initial
    /// The customer pays with the card the merchant stored (a one-off sale by token):
    /// customer-initiated, stored credential used.
    case customerInitiated
    /// A scheduled charge the merchant makes on the stored card: merchant-initiated, recurring,
    /// referring to the network transaction id of the first use. `nil` when none is on file (a card
    /// registered without verification, or before the vault kept them): the charge is then sent
    /// as the first payment of the recurring series.
    case recurring(originalNetworkTransactionID: String?)

    /// `initial` or `subsequent`, as transactions show it.
    public var kind: StoredCredentialKind {
        self == .initial ? .initial : .subsequent
    }

    /// `initial`, `customer_initiated`, `recurring` or `recurring(first)`; never the network
    /// transaction id.
    public var description: String {
        switch self {
        case .initial: "initial"
        case .customerInitiated: "customer_initiated"
        case let .recurring(original): original == nil ? "recurring(first)" : "recurring"
        }
    }
}

/// Whether a transaction stored a card's credential or used one already stored.
public enum StoredCredentialKind: String, Sendable, Codable, CaseIterable {
    /// The first use: the credential is being stored.
    case initial
    /// A later use of the stored credential.
    case subsequent
}

/// The masked form of a network transaction id, the only form shown in the API, logs or audit.
public enum NetworkTransactionID {
    /// All but the last four characters replaced by `*` (at most 16 shown in all); ids of four
    /// characters or fewer are fully masked.
    public static func masked(_ id: String) -> String {
        let characters = Array(id)
        guard characters.count > 4 else { return String(repeating: "*", count: characters.count) }
        let hidden = min(characters.count - 4, 12)
        return String(repeating: "*", count: hidden) + String(characters.suffix(4))
    }
}
