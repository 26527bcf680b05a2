extension PostgresSchema {
    /// An Idempotency-Key's claim names its holder and when it is taken as abandoned, and reserves
    /// the id of the transaction its request creates: a retry after the holder died takes the claim
    /// over and answers what that request left instead of "in progress" for a day. Claims of an
    /// earlier build name no holder and are taken over by the next retry.
    static let idempotencyClaims = PostgresMigration(id: 9, name: "idempotency claims with a holder and an expiry", statements: [
        "ALTER TABLE idempotency_keys ADD COLUMN owner text",
        "ALTER TABLE idempotency_keys ADD COLUMN expires_at text",
        "ALTER TABLE idempotency_keys ADD COLUMN transaction_id text",
    ])
}
