extension PostgresSchema {
    /// Each audit chain is bound (`AuditChainBinding`): its event count and last link under a MAC of
    /// the audit key, advanced in the commit of every append, so a chain deleted whole is noticed.
    /// The chains of an earlier build are copied unbound (mac NULL) and bound once at start.
    static let auditChainBindings = PostgresMigration(id: 18, name: "audit chain bindings", statements: [
        """
        CREATE TABLE audit_chain_bindings (
            chain text PRIMARY KEY,
            events bigint NOT NULL,
            head bytea NOT NULL,
            mac bytea
        )
        """,
        "INSERT INTO audit_chain_bindings (chain, events, head, mac) SELECT chain, last_seq, last_hash, NULL FROM audit_chains WHERE last_seq > 0",
    ])
}
