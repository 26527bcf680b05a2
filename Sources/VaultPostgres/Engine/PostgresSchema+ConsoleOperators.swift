extension PostgresSchema {
    /// Console operators: individual accounts with a role, the merchants they may see (NULL for
    /// every one), an Argon2id password hash, a sealed TOTP secret, the failed sign-ins that lock
    /// them and the step of the last code accepted (a code is used once); their sessions, found by
    /// the SHA-256 of the cookie's token, never the token itself.
    static let consoleOperators = PostgresMigration(id: 17, name: "console operators and sessions", statements: [
        """
        CREATE TABLE operators (
            id text PRIMARY KEY,
            name text NOT NULL UNIQUE,
            role text NOT NULL CHECK (role IN ('admin', 'support', 'readonly')),
            merchant_ids text,
            status text NOT NULL CHECK (status IN ('active', 'disabled')),
            password_hash text NOT NULL,
            totp_secret bytea NOT NULL,
            failed_sign_ins bigint NOT NULL DEFAULT 0,
            locked_until text,
            last_code_step bigint,
            created_at text NOT NULL,
            updated_at text NOT NULL
        )
        """,
        """
        CREATE TABLE console_sessions (
            token_hash text PRIMARY KEY,
            operator_id text NOT NULL REFERENCES operators(id),
            created_at text NOT NULL,
            last_seen_at text NOT NULL,
            expires_at text NOT NULL
        )
        """,
        "CREATE INDEX console_sessions_operator ON console_sessions(operator_id)",
    ])
}
