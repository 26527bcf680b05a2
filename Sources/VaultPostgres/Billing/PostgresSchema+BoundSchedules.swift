extension PostgresSchema {
    /// Schedules and steps are bound: each row carries a MAC of the fields that move money
    /// (`ScheduleBinding`), written by the domain with the row and checked before any charge, so a
    /// schedule pointed at another card or a step re-priced in SQL is never charged. Rows of an
    /// earlier build (no binding) are bound at start-up, once per merchant.
    static let boundSchedules = PostgresMigration(id: 11, name: "bound schedules and steps", statements: [
        "ALTER TABLE schedules ADD COLUMN binding bytea",
        "ALTER TABLE schedule_steps ADD COLUMN binding bytea",
        "CREATE INDEX schedules_unbound ON schedules(seq) WHERE binding IS NULL",
        "CREATE INDEX schedule_steps_unbound ON schedule_steps(schedule_id) WHERE binding IS NULL",
    ])
}
