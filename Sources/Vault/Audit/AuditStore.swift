

/// Where audit events are kept. Appending happens inside the stores' own write transactions;
/// this protocol covers reading and verification.
public protocol AuditStore: Sendable {
    /// Appends one event on its own (for actions that change nothing else).
    func appendAudit(_ entry: AuditEntry) async throws
    /// Events of one merchant (or all, when nil), newest first, after the cursor sequence.
    func auditEvents(merchantID: String?, before sequence: Int64?, limit: Int) async throws -> [AuditEvent]
    /// Walks the chain from the first event and reports the first break.
    func verifyAuditChain() async throws -> AuditVerification
}
