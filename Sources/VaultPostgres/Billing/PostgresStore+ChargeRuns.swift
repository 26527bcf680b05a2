public import Foundation
import Payments
import PostgresNIO
public import Scheduler
public import Vault

extension PostgresStore: ChargeRunStore {
    /// Leases due steps with `FOR UPDATE SKIP LOCKED`: runners in several processes, on several
    /// machines, each lock and lease a disjoint set (a row another claim has locked is skipped, a
    /// row whose lease a committed claim wrote is no longer free), and an expired lease (a runner
    /// killed anywhere) is free again. Three index range scans, each stopped at what is still
    /// missing, as the SQLite store does; the schedules and open attempts are read after the claim
    /// commits.
    public func claimDueSteps(
        asOf: Date, merchantID: String?, owner: String, now: Date, leaseUntil: Date, limit: Int,
        isOwnerGone: @escaping @Sendable (String) -> Bool
    ) async throws -> ClaimedSteps {
        guard limit > 0 else { return ClaimedSteps() }
        let asOfText = Timestamp.string(asOf)
        let nowText = Timestamp.string(now)
        let leaseText = Timestamp.string(leaseUntil)
        let leased = try await write { write in
            var candidates: [PostgresRowReader] = []
            for range in ClaimRange.allCases where candidates.count < limit {
                var query: PostgresQuery = """
                    WITH picked AS (
                        SELECT s.seq FROM schedule_steps s JOIN schedules sc ON sc.id = s.schedule_id
                        WHERE sc.status IN (\(unescaped: Literal.charging)) AND (s.lease_until IS NULL OR s.lease_until < \(nowText))
                    """
                switch range {
                case .processing: query.sql += " AND s.status = " + Literal.processing
                case .retryPending: query.append(" AND s.status = " + Literal.retryPending + " AND s.next_attempt_at <= ", asOfText)
                case .scheduled: query.append(" AND s.status = " + Literal.scheduled + " AND s.due_at <= ", asOfText)
                }
                if let merchantID { query.append(" AND s.merchant_id = ", merchantID) }
                query.sql += " ORDER BY s.\(range.order), s.seq"
                query.append(" LIMIT ", limit - candidates.count, " FOR UPDATE OF s SKIP LOCKED)")
                query.append(", leased AS (UPDATE schedule_steps s SET lease_owner = ", owner)
                query.append(", lease_until = ", leaseText, " FROM picked WHERE s.seq = picked.seq RETURNING s.*)")
                query.sql += " SELECT * FROM leased ORDER BY \(range.order), seq"
                candidates += try await write.rows(prepared: query)
            }
            if candidates.count < limit {
                // Steps leased by a runner that died on this machine are free at once (on another
                // machine's, a lease simply expires). The owners are read first, as a set, and the
                // dead owners' steps are then locked with SKIP LOCKED in the statement that leases
                // them: a claim running beside this one (another batch of this run, or another
                // runner) takes different steps of the same dead owner instead of none.
                var owners: PostgresQuery = """
                    SELECT DISTINCT s.lease_owner AS owner FROM schedule_steps s
                    WHERE s.lease_owner IS NOT NULL AND s.lease_owner <> \(owner) AND s.lease_until >= \(nowText)
                    """
                if let merchantID { owners.append(" AND s.merchant_id = ", merchantID) }
                let gone = try await write.rows(prepared: owners).map { try $0.string("owner") }.filter(isOwnerGone)
                if !gone.isEmpty {
                    var query: PostgresQuery = """
                        WITH picked AS (
                            SELECT s.seq FROM schedule_steps s JOIN schedules sc ON sc.id = s.schedule_id
                            WHERE s.lease_owner = ANY(\(gone)::text[]) AND s.lease_until >= \(nowText)
                            AND ((s.status = \(unescaped: Literal.scheduled) AND s.due_at <= \(asOfText))
                                OR (s.status = \(unescaped: Literal.retryPending) AND s.next_attempt_at <= \(asOfText))
                                 OR s.status = \(unescaped: Literal.processing))
                            AND sc.status IN (\(unescaped: Literal.charging))
                        """
                    if let merchantID { query.append(" AND s.merchant_id = ", merchantID) }
                    query.append(" ORDER BY s.seq LIMIT ", limit - candidates.count, " FOR UPDATE OF s SKIP LOCKED)")
                    query.append(", leased AS (UPDATE schedule_steps s SET lease_owner = ", owner)
                    query.append(", lease_until = ", leaseText, " FROM picked WHERE s.seq = picked.seq RETURNING s.*)")
                    query.sql += " SELECT * FROM leased ORDER BY seq"
                    candidates += try await write.rows(prepared: query)
                }
            }
            // A row this build cannot read sets its step aside (still leased) instead of failing the claim.
            return try candidates.map { try ClaimedSteps.readStep($0, Self.step) }
        }
        let steps = leased
        guard !steps.isEmpty else { return ClaimedSteps() }
        let readSteps = steps.compactMap { try? $0.get() }
        let scheduleIDs = Array(Set(readSteps.map(\.scheduleID)))
        let open = readSteps.filter { $0.status == .processing }
        let found = try await billingRead { connection in
            // Schedules of one batch often share a plan: each distinct plan text is decoded once.
            var plans: [String: PlanTerms] = [:]
            var schedules: [String: Result<Schedule, StoredRowError>] = [:]
            for row in try await connection.rows("SELECT * FROM schedules WHERE id = ANY(\(scheduleIDs)::text[])") {
                let id = try row.string("id")
                schedules[id] = try ClaimedSteps.read {
                    let (text, column) = try StoredPlan.text(of: row)
                    let plan = try plans[text] ?? StoredPlan.plan(storedText: text, scheduleID: id, column: column)
                    plans[text] = plan
                    return try Self.schedule(row, plan: plan)
                }
            }
            var attempts: [String: Result<Transaction, StoredRowError>] = [:]
            if !open.isEmpty {
                for row in try await connection.rows(
                    """
                    SELECT t.* FROM unnest(\(open.map(\.id))::text[], \(open.map { Int64($0.attempts) })::bigint[]) AS o(step_id, attempt)
                    JOIN transactions t ON t.step_id = o.step_id AND t.attempt = o.attempt
                    """)
                {
                    attempts[try row.string("step_id")] = try ClaimedSteps.read { try Self.transaction(row) }
                }
            }
            return (schedules: schedules, open: attempts)
        }
        return ClaimedSteps.assemble(steps: steps, schedules: found.schedules, openAttempts: found.open)
    }

    public func releaseLeases(stepIDs: [String], owner: String) async throws {
        guard !stepIDs.isEmpty else { return }
        try await write { write in
            _ = try await write.run(
                "UPDATE schedule_steps SET lease_owner = NULL, lease_until = NULL WHERE id = ANY(\(stepIDs)::text[]) AND lease_owner = \(owner)")
        }
    }

    public func heldBackSteps(merchantID: String?, now: Date) async throws -> Int {
        var query: PostgresQuery = """
            SELECT count(*) AS n FROM schedule_steps s JOIN schedules sc ON sc.id = s.schedule_id
            WHERE s.status = \(unescaped: Literal.processing) AND s.lease_owner IS NULL AND s.lease_until > \(Timestamp.string(now))
            AND sc.status IN (\(unescaped: Literal.charging))
            """
        if let merchantID { query.append(" AND s.merchant_id = ", merchantID) }
        let count = query
        return try await billingRead { connection in
            try await connection.row(count)?.int("n") ?? 0
        }
    }

    public func dueStepTotals(asOf: Date, merchantID: String?) async throws -> (count: Int, totals: [String: Int64]) {
        let asOfText = Timestamp.string(asOf)
        var query: PostgresQuery = """
            SELECT s.currency AS currency, count(*) AS n, sum(s.amount)::bigint AS total
            FROM schedule_steps s JOIN schedules sc ON sc.id = s.schedule_id
            WHERE sc.status IN (\(unescaped: Literal.charging))
            AND ((s.status = \(unescaped: Literal.scheduled) AND s.due_at <= \(asOfText))
                OR (s.status = \(unescaped: Literal.retryPending) AND s.next_attempt_at <= \(asOfText))
                 OR s.status = \(unescaped: Literal.processing))
            """
        if let merchantID { query.append(" AND s.merchant_id = ", merchantID) }
        query.sql += " GROUP BY s.currency"
        let totalsQuery = query
        return try await billingRead { connection in
            var count = 0
            var totals: [String: Int64] = [:]
            for row in try await connection.rows(totalsQuery) {
                count += try row.int("n")
                totals[try row.string("currency")] = try row.int64("total")
            }
            return (count, totals)
        }
    }

    public func openEndedSchedules(merchantID: String?) async throws -> [Result<Schedule, StoredRowError>] {
        var query: PostgresQuery =
            "SELECT * FROM schedules WHERE status IN (\(unescaped: Literal.extendable)) AND materialized_through IS NOT NULL"
        if let merchantID { query.append(" AND merchant_id = ", merchantID) }
        let open = query
        return try await billingRead { connection in
            try await connection.rows(open).map { row in try ClaimedSteps.read { try Self.schedule(row) } }
        }
    }

    public func lastStep(scheduleID: String) async throws -> ScheduleStep? {
        try await billingRead { connection in
            try await connection.row("SELECT * FROM schedule_steps WHERE schedule_id = \(scheduleID) ORDER BY sequence DESC LIMIT 1").map(Self.step)
        }
    }

    public func insertChargeRun(_ run: ChargeRunRecord, audit: AuditEntry) async throws {
        try await write { write in
            try await Self.failRunsOfGoneOwners(write, at: run.startedAt)
            try await Self.insert(run, audit: audit, write)
        }
    }

    /// Serialised per merchant by a transaction-scoped advisory lock, so two servers starting a
    /// run of one merchant at once cannot both find none running.
    public func insertChargeRun(_ run: ChargeRunRecord, audit: AuditEntry, unlessRunningSince staleBefore: Date) async throws -> ChargeRunRecord? {
        let lockName = "charge_run:" + (run.merchantID ?? "")
        return try await write { write in
            try await write.run("SELECT pg_advisory_xact_lock(hashtextextended(\(lockName), 0))")
            try await Self.failRunsOfGoneOwners(write, at: run.startedAt)
            if let running = try await write.row(
                """
                SELECT * FROM charge_runs WHERE merchant_id = \(run.merchantID) AND status = \(unescaped: ChargeRunStatus.running.sqlLiteral)
                    AND started_at > \(Timestamp.string(staleBefore)) ORDER BY started_at LIMIT 1
                """)
            {
                return try Self.chargeRun(running)
            }
            try await Self.insert(run, audit: audit, write)
            return nil
        }
    }

    /// Runs left `running` by a process killed on this host are recorded as failed.
    private static func failRunsOfGoneOwners(_ write: PostgresWrite, at now: Date) async throws {
        for row in try await write.rows("SELECT id, owner FROM charge_runs WHERE status = \(unescaped: ChargeRunStatus.running.sqlLiteral) AND owner IS NOT NULL") {
            guard RunnerIdentity.isGone(try row.string("owner")) else { continue }
            try await write.run(
                """
                UPDATE charge_runs SET status = \(unescaped: ChargeRunStatus.failed.sqlLiteral), finished_at = \(Timestamp.string(now))
                WHERE id = \(try row.string("id")) AND status = \(unescaped: ChargeRunStatus.running.sqlLiteral)
                """)
        }
    }

    private static func insert(_ run: ChargeRunRecord, audit: AuditEntry, _ write: PostgresWrite) async throws {
        try await write.run(
            """
            INSERT INTO charge_runs (id, merchant_id, status, as_of, dry_run, started_by, started_at, finished_at, summary, owner)
            VALUES (\(run.id), \(run.merchantID), \(run.status.rawValue), \(Timestamp.string(run.asOf)), \(Int64(run.dryRun ? 1 : 0)),
                \(run.startedBy), \(Timestamp.string(run.startedAt)), \(Timestamp.optional(run.finishedAt)), \(run.summary), \(run.owner))
            """)
        try await write.appendAudit(PendingAuditEvent(audit))
    }

    public func updateChargeRun(_ run: ChargeRunRecord) async throws {
        try await write { write in
            _ = try await write.run(
                """
                UPDATE charge_runs SET status = \(run.status.rawValue), finished_at = \(Timestamp.optional(run.finishedAt)), summary = \(run.summary)
                WHERE id = \(run.id)
                """)
        }
    }

    public func chargeRun(id: String, merchantID: String?) async throws -> ChargeRunRecord? {
        var query: PostgresQuery = "SELECT * FROM charge_runs WHERE id = \(id)"
        if let merchantID { query.append(" AND merchant_id = ", merchantID) }
        let one = query
        return try await billingRead { connection in
            try await connection.row(one).map(Self.chargeRun)
        }
    }

    public func chargeRuns(merchantID: String, beforeSequence: Int64?, limit: Int) async throws -> [ListedChargeRun] {
        let before = beforeSequence ?? Int64.max
        return try await billingRead { connection in
            try await connection.rows(
                """
                SELECT * FROM charge_runs WHERE (merchant_id = \(merchantID) OR merchant_id IS NULL) AND seq < \(before)
                ORDER BY seq DESC LIMIT \(limit)
                """
            ).map { ListedChargeRun(sequence: try $0.int64("seq"), record: try Self.chargeRun($0)) }
        }
    }

    /// A run as read; a `running` run whose process is gone from this host shows as `failed`.
    static func chargeRun(_ row: PostgresRowReader) throws -> ChargeRunRecord {
        let stored = try row.table("charge_runs")
        var record = ChargeRunRecord(
            id: stored.id, merchantID: try row.optionalString("merchant_id"), status: try stored.value(ChargeRunStatus.self, "status"),
            asOf: try stored.instant("as_of"), dryRun: try row.int64("dry_run") != 0, startedBy: try row.string("started_by"),
            startedAt: try stored.instant("started_at"), finishedAt: try stored.optionalInstant("finished_at"),
            summary: try row.optionalString("summary"), owner: try row.optionalString("owner"))
        if record.status == .running, let owner = record.owner, RunnerIdentity.isGone(owner) {
            record.status = .failed
        }
        return record
    }
}

/// The three index ranges a claim scans, in the order the SQLite store scans them.
private enum ClaimRange: CaseIterable {
    /// An attempt whose outcome was never recorded.
    case processing
    /// A soft decline whose next attempt is due.
    case retryPending
    /// A step due for its first attempt.
    case scheduled

    /// The column the range is scanned in (then `seq`).
    var order: String {
        switch self {
        case .processing, .scheduled: "due_at"
        case .retryPending: "next_attempt_at"
        }
    }
}

/// The status literals the claims write into their text (one list for both engines).
private typealias Literal = ClaimStatusLiterals

extension PostgresStore: ChargeRunHistoryStore {}
