extension PostgresSchema {
    /// API keys an auditor can account for: a label, an optional expiry (bound into the row's MAC
    /// when set) and the last use, recorded at most once a minute per key.
    static let apiKeyAccounting = PostgresMigration(id: 14, name: "API key label, expiry and last use", statements: [
        "ALTER TABLE api_keys ADD COLUMN label text",
        "ALTER TABLE api_keys ADD COLUMN expires_at text",
        "ALTER TABLE api_keys ADD COLUMN last_used_at text",
    ])
}
