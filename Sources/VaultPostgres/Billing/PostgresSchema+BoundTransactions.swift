extension PostgresSchema {
    /// Transactions are bound: each row carries a MAC of the fields that decide what a follow-up
    /// moves and where (`TransactionBinding`), written by the domain and checked before a capture,
    /// void or refund is sent, so an amount or gateway id edited in SQL moves no money. Rows of an
    /// earlier build (no binding) are bound at start-up, once per merchant.
    static let boundTransactions = PostgresMigration(id: 13, name: "bound transactions", statements: [
        "ALTER TABLE transactions ADD COLUMN binding bytea",
        "CREATE INDEX transactions_unbound ON transactions(seq) WHERE binding IS NULL",
    ])
}
