extension PostgresSchema {
    /// Capture sessions: a card registration prepared by the merchant's back end and spent by one
    /// card sent from the cardholder's device with the session's client secret, kept only as a
    /// keyed MAC (`CaptureSessionSecrets`); the customer and custom fields sealed.
    static let captureSessions = PostgresMigration(id: 12, name: "capture sessions", statements: [
        """
        CREATE TABLE capture_sessions (
            id text PRIMARY KEY,
            merchant_id text NOT NULL REFERENCES merchants(id),
            status text NOT NULL CHECK (status IN ('open', 'submitting', 'completed', 'failed')),
            secret_mac bytea NOT NULL,
            allowed_origin text NOT NULL,
            merchant_reference text NOT NULL,
            verify bigint,
            sealed_details bytea NOT NULL,
            key_version bigint NOT NULL,
            attempts bigint NOT NULL DEFAULT 0,
            secure_card_reference text,
            masked_number text,
            card_type text,
            created_at text NOT NULL,
            updated_at text NOT NULL,
            expires_at text NOT NULL
        )
        """,
        "CREATE INDEX capture_sessions_merchant ON capture_sessions(merchant_id, created_at)",
    ])
}
