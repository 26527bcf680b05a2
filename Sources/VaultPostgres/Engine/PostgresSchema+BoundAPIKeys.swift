extension PostgresSchema {
    /// API key rows are bound: the secret becomes a keyed MAC of the bearer's SHA-256 and each row
    /// carries a MAC of its id, merchant, role and dates (`APIKeyBinding`), so a key inserted,
    /// moved, raised or un-revoked in SQL authenticates nobody. Rows of an earlier build
    /// (`secret_scheme` 0) are bound at start-up.
    static let boundAPIKeys = PostgresMigration(id: 10, name: "bound API keys", statements: [
        "ALTER TABLE api_keys ADD COLUMN secret_scheme bigint NOT NULL DEFAULT 0",
        "ALTER TABLE api_keys ADD COLUMN binding bytea",
        "CREATE INDEX api_keys_legacy ON api_keys(id) WHERE secret_scheme = 0",
    ])
}
