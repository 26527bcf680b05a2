extension PostgresSchema {
    /// A schedule's status in none of the indexes a charge's outcome moves: the card's index (what
    /// the foreign key from schedules to cards needs) is on the card alone, and the unconfirmed
    /// schedules' expiry reads a partial index of the schedules still awaiting confirmation (its
    /// query names the status as a literal, so the planner can use the index under a generic plan).
    static let scheduleStatusIndexes = PostgresMigration(id: 23, name: "schedule status out of the card index", statements: [
        "DROP INDEX schedules_by_card",
        "CREATE INDEX schedules_by_card ON schedules (secure_card_id)",
        "DROP INDEX schedules_pending",
        "CREATE INDEX schedules_pending ON schedules (expires_at) WHERE status = 'pending_confirmation'",
    ])
}
