extension PostgresSchema {
    /// A webhook signing key replaced by a rotation keeps signing beside the new one until then.
    static let webhookKeyOverlap = PostgresMigration(id: 16, name: "webhook keys signing until the end of a rotation's overlap", statements: [
        "ALTER TABLE merchant_keys ADD COLUMN signs_until text"
    ])
}
