extension PostgresSchema {
    /// Migration 3: the request limits every server shares (``PostgresRequestLimits``).
    static let limits = PostgresMigration(id: 3, name: "request limits shared by every server", statements: PostgresRequestLimits.schema)
}
