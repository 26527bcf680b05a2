extension PostgresSchema {
    /// The claim's order in its indexes: a claim leases the first due steps by due time (retries by
    /// their next attempt), then `seq`, `LIMIT` a batch. With `(status, due_at)` alone PostgreSQL
    /// could not read that order from the index: when most steps were due (a first run after an
    /// import, a backlog after a runner was down, the runner benchmark) it read every due step and
    /// every schedule, sorted them and kept a batch, for each batch: 39-45 ms a claim of 256 at
    /// 20,000 due steps, growing with the backlog. With `seq` last, it reads a batch's steps in
    /// order from the index and stops (7 ms, most of it the lease's update). SQLite's indexes end
    /// with the rowid, which is `seq`, so its `(status, due_at)` already gives that order.
    static let claimOrder = PostgresMigration(id: 22, name: "claims in index order", statements: [
        "DROP INDEX schedule_steps_due",
        "CREATE INDEX schedule_steps_due ON schedule_steps (status, due_at, seq)",
        "DROP INDEX schedule_steps_retry",
        "CREATE INDEX schedule_steps_retry ON schedule_steps (status, next_attempt_at, seq)",
    ])
}
