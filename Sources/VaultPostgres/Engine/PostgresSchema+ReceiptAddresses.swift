extension PostgresSchema {
    /// A transaction keeps the payer's receipt address, sealed under the merchant's data key, so its
    /// follow-ups and an outcome settled later send their receipts to it; each queued receipt is
    /// bound (`ReceiptBinding`), so a row edited in SQL is never sent; sent and failed receipts are
    /// purged by age (as on SQLite).
    static let receiptAddresses = PostgresMigration(id: 19, name: "receipt addresses and bindings", statements: [
        "ALTER TABLE transactions ADD COLUMN receipt_address bytea",
        "ALTER TABLE email_receipts ADD COLUMN binding bytea",
        "CREATE INDEX email_receipts_settled ON email_receipts(status, created_at)",
    ])
}
