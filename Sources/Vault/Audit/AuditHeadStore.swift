/// The audit chain's recorded head, for an external anchor (`vault audit verify`, `audit upgrade`).
public protocol AuditHeadStore: Sendable {
    /// The recorded head of the chain (`<sequence>:<link>` in hex); nil when the chain is empty.
    func auditChainHead() async throws -> String?
    /// Whether the chain still holds `head`, one head as `auditChainHead` printed it earlier
    /// (`<sequence>:<link>`, on PostgreSQL `<chain>=<sequence>:<link>`): the event at that position
    /// has that link. False once the database was rolled back to before it, or the events up to it
    /// (or its whole chain) were removed, however consistently; nil when `head` is not of that form.
    func auditChainHolds(_ head: String) async throws -> Bool?
}
