public import Foundation
import Payments
public import Vault
public import Scheduler

extension SQLiteStore: ChargeRunStore {
    public func claimDueSteps(
        asOf: Date, merchantID: String?, owner: String, now: Date, leaseUntil: Date, limit: Int,
        isOwnerGone: @escaping @Sendable (String) -> Bool
    ) async throws -> ClaimedSteps {
        let asOfText = Timestamp.string(asOf)
        let nowText = Timestamp.string(now)
        let leaseText = Timestamp.string(leaseUntil)
        let leased = try await database.write { connection in
            // Index range scans over the partial index of each claimed status (and the partial
            // lease index), each stopping at `limit` rows, instead of one OR over the whole table:
            // a claim runs inside the writer, so it must cost O(limit), not O(steps). The index is
            // named: without statistics the planner would start from the charging schedules.
            let merchantFilter: SQLiteQuery = merchantID.map { " AND s.merchant_id = \($0)" } ?? ""
            let free: SQLiteQuery = "(s.lease_until IS NULL OR s.lease_until < \(nowText))"
            var candidates: [SQLiteRow] = []
            for range in Self.claimRanges(asOf: asOfText) where candidates.count < limit {
                candidates += try connection.query(
                    """
                    SELECT s.* FROM schedule_steps s INDEXED BY \(unescaped: range.index) JOIN schedules sc ON sc.id = s.schedule_id
                    WHERE \(range.condition) AND \(free) AND sc.status IN (\(unescaped: Literal.charging))\(merchantFilter)
                    ORDER BY \(unescaped: range.order) LIMIT \(limit - candidates.count)
                    """)
            }
            if candidates.count < limit {
                // Steps leased by a runner that died on this machine are free at once. The owners
                // are read first, as a set, so steps of live runners (however many) never hide a
                // dead one's.
                let gone = try connection.query(
                    """
                    SELECT DISTINCT s.lease_owner AS owner FROM schedule_steps s INDEXED BY schedule_steps_leased
                    WHERE s.lease_owner IS NOT NULL AND s.lease_owner <> \(owner) AND s.lease_until >= \(nowText)\(merchantFilter)
                    """).map { try $0.string("owner") }.filter(isOwnerGone)
                for dead in gone where candidates.count < limit {
                    candidates += try connection.query(
                        """
                        SELECT s.* FROM schedule_steps s INDEXED BY schedule_steps_leased
                        JOIN schedules sc ON sc.id = s.schedule_id
                        WHERE s.lease_owner = \(dead) AND s.lease_until >= \(nowText)
                        AND ((s.status = \(unescaped: Literal.scheduled) AND s.due_at <= \(asOfText))
                            OR (s.status = \(unescaped: Literal.retryPending) AND s.next_attempt_at <= \(asOfText))
                            OR s.status = \(unescaped: Literal.processing))
                        AND sc.status IN (\(unescaped: Literal.charging))\(merchantFilter) ORDER BY s.seq LIMIT \(limit - candidates.count)
                        """)
                }
            }
            // Only the leases are written here: the steps, their schedules and open attempts are
            // read and decoded after the write returns, off the single writer thread.
            for row in candidates {
                try connection.run(
                    """
                    UPDATE schedule_steps SET lease_owner = \(owner), lease_until = \(leaseText) WHERE seq = \(row.int64("seq"))
                    """)
            }
            return candidates
        }
        // A row this build cannot read sets its step aside (still leased) instead of failing the claim.
        let steps = try leased.map { row in try ClaimedSteps.readStep(row, Self.step) }
        let readSteps = steps.compactMap { try? $0.get() }
        guard !steps.isEmpty else { return ClaimedSteps() }
        let scheduleIDs = CanonicalJSON.text(.array(Set(readSteps.map(\.scheduleID)).map { .string($0) }))
        let rows = try await database.read { connection in
            let schedules = try connection.query("SELECT * FROM schedules WHERE id IN (SELECT value FROM json_each(\(scheduleIDs)))")
            var open: [String: SQLiteRow] = [:]
            for step in readSteps where step.status == .processing {
                open[step.id] = try connection.queryOne(
                    """
                    SELECT * FROM transactions WHERE step_id = \(step.id) AND attempt = \(step.attempts)
                    """)
            }
            return (schedules: schedules, open: open)
        }
        // Schedules of one batch often share a plan: each distinct plan text is decoded once.
        var plans: [String: PlanTerms] = [:]
        var schedules: [String: Result<Schedule, StoredRowError>] = [:]
        for row in rows.schedules {
            let id = try row.string("id")
            schedules[id] = try ClaimedSteps.read {
                let (text, column) = try StoredPlan.text(of: row)
                let plan = try plans[text] ?? StoredPlan.plan(storedText: text, scheduleID: id, column: column)
                plans[text] = plan
                return try Self.schedule(row, plan: plan)
            }
        }
        let open = try rows.open.mapValues { row in try ClaimedSteps.read { try Self.transaction(row) } }
        return ClaimedSteps.assemble(steps: steps, schedules: schedules, openAttempts: open)
    }

    /// The steps a run claims, in the order it claims them: those in progress (an open attempt to
    /// settle), those whose retry is due, then those due. Each is one range of the partial index
    /// of its status (migration 44), read in the order of `order`.
    private static func claimRanges(asOf asOfText: String) -> [(index: String, condition: SQLiteQuery, order: String)] {
        [
            ("schedule_steps_processing", "s.status = \(unescaped: Literal.processing)", "s.due_at"),
            ("schedule_steps_retry_pending", "s.status = \(unescaped: Literal.retryPending) AND s.next_attempt_at <= \(asOfText)", "s.next_attempt_at"),
            ("schedule_steps_scheduled", "s.status = \(unescaped: Literal.scheduled) AND s.due_at <= \(asOfText)", "s.due_at"),
        ]
    }

    public func releaseLeases(stepIDs: [String], owner: String) async throws {
        guard !stepIDs.isEmpty else { return }
        try await database.write { connection in
            for stepID in stepIDs {
                try connection.run(
                    "UPDATE schedule_steps SET lease_owner = NULL, lease_until = NULL WHERE id = \(stepID) AND lease_owner = \(owner)")
            }
        }
    }

    public func heldBackSteps(merchantID: String?, now: Date) async throws -> Int {
        let nowText = Timestamp.string(now)
        return try await database.read { connection in
            // An unsettled outcome holds its step back with a lease that has no owner.
            var sql: SQLiteQuery = """
                SELECT count(*) AS n FROM schedule_steps s INDEXED BY schedule_steps_processing JOIN schedules sc ON sc.id = s.schedule_id
                WHERE s.status = \(unescaped: Literal.processing) AND s.lease_owner IS NULL AND s.lease_until > \(nowText)
                AND sc.status IN (\(unescaped: Literal.charging))
                """
            sql.and(merchantID) { "s.merchant_id = \($0)" }
            return try connection.queryOne(sql)?.int("n") ?? 0
        }
    }

    public func dueStepTotals(asOf: Date, merchantID: String?) async throws -> (count: Int, totals: [String: Int64]) {
        let asOfText = Timestamp.string(asOf)
        return try await database.read { connection in
            // One branch per claimed status, each read through that status's partial index (an OR
            // of the three cannot use partial indexes and would read every charging schedule).
            let merchantFilter: SQLiteQuery = merchantID.map { " AND s.merchant_id = \($0)" } ?? ""
            var sql: SQLiteQuery = "SELECT currency, count(*) AS n, sum(amount) AS total FROM ("
            for (offset, range) in Self.claimRanges(asOf: asOfText).enumerated() {
                if offset > 0 { sql += " UNION ALL " }
                sql += """
                    SELECT s.currency AS currency, s.amount AS amount FROM schedule_steps s INDEXED BY \(unescaped: range.index)
                    JOIN schedules sc ON sc.id = s.schedule_id
                    WHERE \(range.condition) AND sc.status IN (\(unescaped: Literal.charging))\(merchantFilter)
                    """
            }
            sql += ") GROUP BY currency"
            var count = 0
            var totals: [String: Int64] = [:]
            for row in try connection.query(sql) {
                count += try row.int("n")
                totals[try row.string("currency")] = try row.int64("total")
            }
            return (count, totals)
        }
    }

    public func openEndedSchedules(merchantID: String?) async throws -> [Result<Schedule, StoredRowError>] {
        try await database.read { connection in
            var sql: SQLiteQuery = "SELECT * FROM schedules WHERE status IN (\(unescaped: Literal.extendable)) AND materialized_through IS NOT NULL"
            sql.and(merchantID) { "merchant_id = \($0)" }
            return try connection.query(sql).map { row in try ClaimedSteps.read { try Self.schedule(row) } }
        }
    }

    public func lastStep(scheduleID: String) async throws -> ScheduleStep? {
        try await database.readOne(
            """
            SELECT * FROM schedule_steps WHERE schedule_id = \(scheduleID) ORDER BY sequence DESC LIMIT 1
            """).map(Self.step)
    }

    public func insertChargeRun(_ run: ChargeRunRecord, audit: AuditEntry) async throws {
        try await database.write { connection in
            try Self.failRunsOfGoneOwners(connection, at: run.startedAt)
            try Self.insert(run, audit: audit, connection)
        }
    }

    public func insertChargeRun(_ run: ChargeRunRecord, audit: AuditEntry, unlessRunningSince staleBefore: Date) async throws -> ChargeRunRecord? {
        try await database.write { connection in
            try Self.failRunsOfGoneOwners(connection, at: run.startedAt)
            if let running = try connection.queryOne(
                """
                SELECT * FROM charge_runs WHERE merchant_id = \(run.merchantID) AND status = \(unescaped: ChargeRunStatus.running.sqlLiteral)
                    AND started_at > \(Timestamp.string(staleBefore)) ORDER BY started_at LIMIT 1
                """)
            {
                return try Self.chargeRun(running)
            }
            try Self.insert(run, audit: audit, connection)
            return nil
        }
    }

    /// Runs left `running` by a process killed on this host are recorded as failed.
    private static func failRunsOfGoneOwners(_ connection: SQLiteConnection, at now: Date) throws {
        for row in try connection.query("SELECT id, owner FROM charge_runs WHERE status = \(unescaped: ChargeRunStatus.running.sqlLiteral) AND owner IS NOT NULL") {
            guard RunnerIdentity.isGone(try row.string("owner")) else { continue }
            try connection.run(
                """
                UPDATE charge_runs SET status = \(unescaped: ChargeRunStatus.failed.sqlLiteral), finished_at = \(Timestamp.string(now))
                    WHERE id = \(row.string("id")) AND status = \(unescaped: ChargeRunStatus.running.sqlLiteral)
                """)
        }
    }

    private static func insert(_ run: ChargeRunRecord, audit: AuditEntry, _ connection: SQLiteConnection) throws {
        try connection.run(
            """
            INSERT INTO charge_runs (id, merchant_id, status, as_of, dry_run, started_by, started_at, finished_at, summary, owner)
            VALUES (\(run.id), \(run.merchantID), \(run.status.rawValue), \(Timestamp.string(run.asOf)), \(run.dryRun), \(run.startedBy),
                \(Timestamp.string(run.startedAt)), \(run.finishedAt.map(Timestamp.string)), \(run.summary), \(run.owner))
            """)
        try connection.appendAudit(audit)
    }

    public func updateChargeRun(_ run: ChargeRunRecord) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE charge_runs SET status = \(run.status.rawValue), finished_at = \(run.finishedAt.map(Timestamp.string)),
                    summary = \(run.summary) WHERE id = \(run.id)
                """)
        }
    }

    public func chargeRun(id: String, merchantID: String?) async throws -> ChargeRunRecord? {
        try await database.read { connection in
            var sql: SQLiteQuery = "SELECT * FROM charge_runs WHERE id = \(id)"
            sql.and(merchantID) { "merchant_id = \($0)" }
            return try connection.queryOne(sql).map(Self.chargeRun)
        }
    }

    public func chargeRuns(merchantID: String, beforeSequence: Int64?, limit: Int) async throws -> [ListedChargeRun] {
        let before = beforeSequence ?? Int64.max
        return try await database.read { connection in
            try connection.query(
                """
                SELECT * FROM charge_runs WHERE (merchant_id = \(merchantID) OR merchant_id IS NULL) AND seq < \(before)
                ORDER BY seq DESC LIMIT \(limit)
                """
            ).map { ListedChargeRun(sequence: try $0.int64("seq"), record: try Self.chargeRun($0)) }
        }
    }

    /// A run as read; a `running` run whose process is gone from this host shows as `failed`.
    static func chargeRun(_ row: SQLiteRow) throws -> ChargeRunRecord {
        let stored = try row.table("charge_runs")
        var record = ChargeRunRecord(
            id: stored.id, merchantID: try row.optionalString("merchant_id"), status: try stored.value(ChargeRunStatus.self, "status"),
            asOf: try stored.instant("as_of"), dryRun: try row.bool("dry_run"),
            startedBy: try row.string("started_by"), startedAt: try stored.instant("started_at"),
            finishedAt: try stored.optionalInstant("finished_at"), summary: try row.optionalString("summary"),
            owner: try row.optionalString("owner"))
        if record.status == .running, let owner = record.owner, RunnerIdentity.isGone(owner) {
            record.status = .failed
        }
        return record
    }
}

/// The status literals the claims write into their text (one list for both engines).
private typealias Literal = ClaimStatusLiterals

extension SQLiteStore: ChargeRunHistoryStore {}
