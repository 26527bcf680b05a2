public import Foundation

/// What happened, by whom, to which object: recorded in the same transaction as the change itself.
///
/// `details` must never hold card data, CVVs, key material or API keys; callers pass
/// references and masked values only.
public struct AuditEntry: Sendable, Equatable {
    /// The merchant the object belongs to; nil for operator actions on the installation.
    public var merchantID: String?
    /// `apikey:<id>`, `cli`, `runner`, or `system`.
    public var actor: String
    /// Dotted verb such as `merchant.created` or `secure_card.registered`.
    public var action: String
    /// The kind of object acted on, e.g. `merchant`, `api_key`, `secure_card`.
    public var objectType: String
    /// The object's public identifier.
    public var objectID: String?
    /// Extra facts, flat and non-sensitive.
    public var details: [String: String]

    /// Creates an entry.
    public init(
        merchantID: String?, actor: String, action: String, objectType: String, objectID: String?,
        details: [String: String] = [:]
    ) {
        self.merchantID = merchantID
        self.actor = actor
        self.action = action
        self.objectType = objectType
        self.objectID = objectID
        self.details = details
    }
}

/// A recorded audit event with its place in the hash chain.
public struct AuditEvent: Sendable, Equatable, Codable {
    /// Position in the chain, from 1 without gaps.
    public var sequence: Int64
    /// Public identifier (`ae_...`).
    public var id: String
    /// When it was recorded.
    public var occurredAt: Date
    /// The merchant it belongs to.
    public var merchantID: String?
    /// Who did it.
    public var actor: String
    /// What was done.
    public var action: String
    /// The kind of object.
    public var objectType: String
    /// The object's identifier.
    public var objectID: String?
    /// Extra facts.
    public var details: [String: String]
    /// Hex link to its predecessor: a MAC under the audit key (SHA-256 for events from before the keyed chain).
    public var hash: String

    private enum CodingKeys: String, CodingKey {
        case sequence, id, occurredAt, merchantID = "merchantId", actor, action, objectType, objectID = "objectId", details, hash
    }

    /// Creates a value (for the storage engines, which build it from their rows).
    public init(
        sequence: Int64, id: String, occurredAt: Date, merchantID: String?, actor: String, action: String, objectType: String,
        objectID: String?, details: [String: String], hash: String
    ) {
        self.sequence = sequence
        self.id = id
        self.occurredAt = occurredAt
        self.merchantID = merchantID
        self.actor = actor
        self.action = action
        self.objectType = objectType
        self.objectID = objectID
        self.details = details
        self.hash = hash
    }
}
