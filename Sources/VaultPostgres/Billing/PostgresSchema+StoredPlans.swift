extension PostgresSchema {
    /// A schedule's plan gets a column of its own in a versioned stored form (`StoredPlan`,
    /// `"v": 1`), so renaming an API field cannot change stored plans; filled here from `plan`
    /// (absent values left out). `plan` keeps the request form servers of earlier builds read, and
    /// is still written (an expand-and-contract across a rolling upgrade: see `StoredPlan`).
    static let storedPlans = PostgresMigration(id: 8, name: "schedule plans in their stored form", statements: [
        "ALTER TABLE schedules ADD COLUMN stored_plan text",
        """
        UPDATE schedules SET stored_plan = jsonb_strip_nulls(jsonb_build_object(
            'v', 1, 'kind', plan::jsonb -> 'type', 'start', plan::jsonb -> 'startDate', 'endKind', plan::jsonb -> 'endType',
            'endOn', plan::jsonb -> 'endDate', 'endAfter', plan::jsonb -> 'endCount', 'month', plan::jsonb -> 'month',
            'day', plan::jsonb -> 'day', 'hour', plan::jsonb -> 'hour', 'minute', plan::jsonb -> 'minute',
            'dates', plan::jsonb -> 'dates', 'zone', plan::jsonb -> 'timeZone'))::text
        WHERE stored_plan IS NULL AND plan::jsonb -> 'v' IS NULL
        """,
    ])
}
