extension PostgresSchema {
    /// The currency of a merchant's gateway account, in which cards are verified (US dollars for
    /// every merchant created before it could be set).
    static let merchantCurrency = PostgresMigration(id: 6, name: "merchant gateway currency", statements: [
        "ALTER TABLE merchants ADD COLUMN gateway_currency text NOT NULL DEFAULT 'USD'",
    ])
}
