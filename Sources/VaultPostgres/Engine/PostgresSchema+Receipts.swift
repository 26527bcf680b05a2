extension PostgresSchema {
    /// The e-mail receipt outbox: one row per transaction, queued in the outcome's commit, the
    /// recipient sealed under the merchant's data key, claimed with a lease by deliverers (as on SQLite).
    static let receipts = PostgresMigration(id: 15, name: "e-mail receipt outbox", statements: [
        """
        CREATE TABLE email_receipts (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text NOT NULL UNIQUE,
            merchant_id text NOT NULL REFERENCES merchants(id),
            transaction_id text NOT NULL UNIQUE,
            event text NOT NULL CHECK (event IN ('paid', 'refunded', 'voided')),
            recipient text NOT NULL,
            masked_recipient text NOT NULL,
            merchant_name text NOT NULL,
            time_zone text NOT NULL,
            occurred_at text NOT NULL,
            body text NOT NULL,
            status text NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
            attempts bigint NOT NULL DEFAULT 0,
            next_attempt_at text NOT NULL,
            lease_until text,
            last_error text,
            created_at text NOT NULL,
            sent_at text
        )
        """,
        "CREATE INDEX email_receipts_due ON email_receipts(status, next_attempt_at)",
        "CREATE INDEX email_receipts_by_merchant ON email_receipts(merchant_id, seq)",
    ])
}
