extension PostgresSchema {
    /// A schedule's plan is stored in a versioned form of its own (`StoredPlan`, `"v": 1`), no
    /// longer as the API request's JSON, so renaming an API field cannot change stored plans. Plans
    /// written before are rewritten here (absent values left out); `StoredPlan` still reads the
    /// old form, which a server of an earlier build sharing the database may write meanwhile.
    static let storedPlans = PostgresMigration(id: 8, name: "schedule plans in their stored form", statements: [
        """
        UPDATE schedules SET plan = jsonb_strip_nulls(jsonb_build_object(
            'v', 1, 'kind', plan::jsonb -> 'type', 'start', plan::jsonb -> 'startDate', 'endKind', plan::jsonb -> 'endType',
            'endOn', plan::jsonb -> 'endDate', 'endAfter', plan::jsonb -> 'endCount', 'month', plan::jsonb -> 'month',
            'day', plan::jsonb -> 'day', 'hour', plan::jsonb -> 'hour', 'minute', plan::jsonb -> 'minute',
            'dates', plan::jsonb -> 'dates', 'zone', plan::jsonb -> 'timeZone'))::text
        WHERE plan::jsonb -> 'v' IS NULL
        """,
    ])
}
