/// Where the audit chains' binding rows (``AuditChainBinding``) are kept. The engines write a
/// chain's row in the commit of every append to it and check the rows in `verifyAuditChain`; this
/// protocol covers the one step start-up takes for a database of an earlier build.
public protocol AuditChainBindingStore: Sendable {
    /// Binds, once, the chains an earlier build wrote (rows the migration copied without a MAC):
    /// each gets its MAC when the chain's recorded head, tagged under the audit key, names the
    /// row's count and link. A row that does not match stays unbound, and `verifyAuditChain`
    /// reports it. Rows deleted are never re-created.
    /// - Returns: how many chains were bound.
    func bindLegacyAuditChains() async throws -> Int
}
