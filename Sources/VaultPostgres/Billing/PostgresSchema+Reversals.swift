extension PostgresSchema {
    /// A void may reverse part of a sale or an uncaptured authorization where the merchant's gateway
    /// allows it (a partial reversal): the original keeps its status and records what was reversed,
    /// so later voids, captures and refunds take only what remains. Originals voided before this
    /// migration were voided whole. A stored credential records the fingerprint of the card number
    /// it was the first use of, so a new number drops the old number's credential but keeps one its
    /// own verification stored.
    static let reversals = PostgresMigration(id: 7, name: "partial reversals, stored credentials' card numbers", statements: [
        "ALTER TABLE transactions ADD COLUMN voided_amount bigint NOT NULL DEFAULT 0",
        "UPDATE transactions SET voided_amount = amount WHERE status = 'voided' AND type IN ('sale', 'authorize')",
        "ALTER TABLE stored_credentials ADD COLUMN card_fingerprint text",
    ])
}
