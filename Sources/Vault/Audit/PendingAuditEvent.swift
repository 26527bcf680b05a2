public import Foundation

/// An audit entry with everything but its place in the chain fixed: id, time and canonical details.
///
/// Built before a write body runs (off the single writer thread); the storage engine's append
/// then only links it to the chain's head and inserts it.
public struct PendingAuditEvent: Sendable, Equatable {
    /// Public identifier (`ae_...`).
    public var id: String
    /// When it was recorded, as stored and hashed.
    public var occurredAt: String
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
    /// Extra facts as canonical JSON, as stored and hashed.
    public var details: String

    /// Fixes `entry`'s id, time (`now`) and details.
    public init(_ entry: AuditEntry, at now: Date = Date()) {
        id = OpaqueToken.makeTimeOrdered(prefix: "ae_", bits: 96, at: now)
        occurredAt = Timestamp.string(now)
        merchantID = entry.merchantID
        actor = entry.actor
        action = entry.action
        objectType = entry.objectType
        objectID = entry.objectID
        details = AuditChain.canonicalDetails(entry.details)
    }
}
