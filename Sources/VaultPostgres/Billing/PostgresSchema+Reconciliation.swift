extension PostgresSchema {
    /// A transaction whose gateway answer was lost, or whose process died before it was written, is
    /// settled by the reconciler; `reconcile_after` is when it may next be looked up (a claim by one
    /// server, then the pause before the next look-up). What the gateway cannot prove waits for an
    /// operator (`needs_review`).
    static let reconciliation = PostgresMigration(id: 4, name: "transactions in review, reconciliation", statements: [
        "ALTER TABLE transactions DROP CONSTRAINT transactions_status_check",
        """
        ALTER TABLE transactions ADD CONSTRAINT transactions_status_check CHECK (status IN ('pending', 'approved', 'declined', 'error',
            'voided', 'refunded', 'partially_refunded', 'captured', 'in_doubt', 'needs_review'))
        """,
        "ALTER TABLE transactions ADD COLUMN reconcile_after text",
        """
        CREATE INDEX transactions_to_reconcile ON transactions (reconcile_after)
            WHERE status IN ('pending', 'in_doubt') AND step_id IS NULL
        """,
        "CREATE INDEX transactions_in_review ON transactions (merchant_id, seq) WHERE status = 'needs_review'",
    ])
}
