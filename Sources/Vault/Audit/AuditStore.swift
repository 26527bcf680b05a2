public import Foundation

/// Which audit events to list (`GET /v1/audit-events`). Every condition given must hold.
public struct AuditFilter: Sendable, Equatable {
    /// Only events by this actor (`apikey:<id>`, `cli`, `runner`, `system`).
    public var actor: String?
    /// Only this action, e.g. `secure_card.registered`.
    public var action: String?
    /// Only this kind of object, e.g. `transaction`.
    public var objectType: String?
    /// Only events about this object.
    public var objectID: String?
    /// Only events at or after this instant.
    public var from: Date?
    /// Only events at or before this instant.
    public var to: Date?

    /// Creates a filter (by default, everything).
    public init(
        actor: String? = nil, action: String? = nil, objectType: String? = nil, objectID: String? = nil, from: Date? = nil, to: Date? = nil
    ) {
        self.actor = actor
        self.action = action
        self.objectType = objectType
        self.objectID = objectID
        self.from = from
        self.to = to
    }
}

/// Where audit events are kept. Appending happens inside the stores' own write transactions;
/// this protocol covers reading and verification.
public protocol AuditStore: Sendable {
    /// Appends one event on its own (for actions that change nothing else).
    func appendAudit(_ entry: AuditEntry) async throws
    /// Events of one merchant (or all, when nil) that match `filter`, newest first, before the cursor sequence.
    func auditEvents(merchantID: String?, filter: AuditFilter, before sequence: Int64?, limit: Int) async throws -> [AuditEvent]
    /// Walks the chain from the first event and reports the first break.
    func verifyAuditChain() async throws -> AuditVerification
}

extension AuditStore {
    /// Events of one merchant (or all, when nil), newest first, before the cursor sequence.
    public func auditEvents(merchantID: String?, before sequence: Int64?, limit: Int) async throws -> [AuditEvent] {
        try await auditEvents(merchantID: merchantID, filter: AuditFilter(), before: sequence, limit: limit)
    }
}
