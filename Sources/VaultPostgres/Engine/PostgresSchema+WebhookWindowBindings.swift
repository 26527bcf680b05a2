extension PostgresSchema {
    /// The end of a replaced webhook key's window is bound (`WebhookSigningWindowBinding`), so it
    /// cannot be raised in the database; windows of an earlier build are bound once at start.
    static let webhookWindowBindings = PostgresMigration(id: 20, name: "webhook signing window bindings", statements: [
        "ALTER TABLE merchant_keys ADD COLUMN signs_until_binding bytea"
    ])
}
