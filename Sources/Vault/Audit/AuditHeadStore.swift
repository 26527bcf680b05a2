/// The audit chain's recorded head, for an external anchor (`vault audit verify`, `audit upgrade`).
public protocol AuditHeadStore: Sendable {
    /// The recorded head of the chain (`<sequence>:<link>` in hex); nil when the chain is empty.
    func auditChainHead() async throws -> String?
}
