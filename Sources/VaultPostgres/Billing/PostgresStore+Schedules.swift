public import Foundation
import PostgresNIO
public import Scheduler
public import Vault

extension PostgresStore: ScheduleStore {
    public func insertSchedule(_ schedule: Schedule, steps: [ScheduleStep], audit: AuditEntry) async throws {
        let plan = try Schedule.legacyPlanText(schedule.plan)
        let storedPlan = try Schedule.storedPlanText(schedule.plan)
        try await write { write in
            try await write.run(
                """
                INSERT INTO schedules (id, merchant_id, secure_card_id, status, plan, stored_plan, amount, currency, description, external_id, sealed_contacts,
                    time_zone, materialized_through, created_at, updated_at, confirmed_at, expires_at, paused_at, binding)
                VALUES (\(schedule.id), \(schedule.merchantID), \(schedule.secureCardReference), \(schedule.status.rawValue), \(plan), \(storedPlan),
                    \(schedule.amount), \(schedule.currency.code), \(schedule.description), \(schedule.externalID),
                    \(bytea(schedule.sealedContacts)), \(schedule.plan.timeZone ?? "UTC"), \(schedule.materializedThrough?.iso),
                    \(Timestamp.string(schedule.createdAt)), \(Timestamp.string(schedule.updatedAt)), \(Timestamp.optional(schedule.confirmedAt)),
                    \(Timestamp.optional(schedule.expiresAt)), \(Timestamp.optional(schedule.pausedAt)), \(bytea(schedule.binding)))
                """)
            try await Self.insertSteps(steps, merchantID: schedule.merchantID, on: write)
            try await write.appendAudit(PendingAuditEvent(audit))
        }
    }

    public func saveSchedule(
        _ schedule: Schedule, expectedStatus: ScheduleStatus, stepUpdates: [StepUpdate], newSteps: [ScheduleStep], audit: AuditEntry
    ) async throws {
        try await write { write in
            let changed = try await write.run(
                """
                UPDATE schedules SET secure_card_id = \(schedule.secureCardReference), status = \(schedule.status.rawValue),
                    amount = \(schedule.amount), description = \(schedule.description), receipt_email = NULL, receipt_phone = NULL,
                    sealed_contacts = \(bytea(schedule.sealedContacts)), materialized_through = \(schedule.materializedThrough?.iso),
                    updated_at = \(Timestamp.string(schedule.updatedAt)), confirmed_at = \(Timestamp.optional(schedule.confirmedAt)),
                    expires_at = \(Timestamp.optional(schedule.expiresAt)), paused_at = \(Timestamp.optional(schedule.pausedAt)),
                    binding = \(bytea(schedule.binding))
                WHERE id = \(schedule.id) AND merchant_id = \(schedule.merchantID) AND status = \(expectedStatus.rawValue)
                RETURNING seq
                """)
            guard changed == 1 else {
                let current = try await write.row("SELECT status FROM schedules WHERE id = \(schedule.id)")?.string("status")
                throw ScheduleError.wrongStatus(current: current.flatMap(ScheduleStatus.init(rawValue:)) ?? expectedStatus, operation: audit.action)
            }
            let stamp = Timestamp.string(schedule.updatedAt)
            for update in stepUpdates {
                let updated = try await write.run(
                    """
                    UPDATE schedule_steps SET status = coalesce(\(update.status?.rawValue)::text, status),
                        amount = coalesce(\(update.amount)::bigint, amount), binding = coalesce(\(bytea(update.binding))::bytea, binding),
                        updated_at = \(stamp)
                    WHERE id = \(update.stepID) AND schedule_id = \(schedule.id) AND status = \(update.expectedStatus.rawValue)
                        AND (lease_until IS NULL OR lease_until <= \(stamp))
                    RETURNING 1
                    """)
                guard updated == 1 else { throw ScheduleError.stepChanged(stepID: update.stepID) }
            }
            try await Self.insertSteps(newSteps, merchantID: schedule.merchantID, on: write)
            try await write.appendAudit(PendingAuditEvent(audit))
        }
    }

    public func schedule(merchantID: String, id: String) async throws -> Schedule? {
        try await billingRead { connection in
            try await connection.row("SELECT * FROM schedules WHERE merchant_id = \(merchantID) AND id = \(id)").map(Self.schedule)
        }
    }

    public func schedules(merchantID: String, status: ScheduleStatus?, secureCardReference: String?, afterSequence: Int64?, limit: Int) async throws
        -> [Schedule]
    {
        var query: PostgresQuery = "SELECT * FROM schedules WHERE merchant_id = \(merchantID)"
        if let status { query.append(" AND status = ", status.rawValue) }
        if let secureCardReference { query.append(" AND secure_card_id = ", secureCardReference) }
        if let afterSequence { query.append(" AND seq > ", afterSequence) }
        query.append(" ORDER BY seq LIMIT ", limit)
        let page = query
        return try await billingRead { connection in
            try await connection.rows(page).map(Self.schedule)
        }
    }

    public func steps(scheduleID: String) async throws -> [ScheduleStep] {
        try await billingRead { connection in
            try await connection.rows("SELECT * FROM schedule_steps WHERE schedule_id = \(scheduleID) ORDER BY sequence").map(Self.step)
        }
    }

    public func expireUnconfirmedSchedules(now: Date) async throws -> [String] {
        let stamp = Timestamp.string(now)
        return try await write { write in
            // Locked (skipping rows another server is expiring or confirming), so a schedule is
            // expired, and audited, once.
            let rows = try await write.rows(
                """
                SELECT id, merchant_id FROM schedules
                WHERE status = \(unescaped: ScheduleStatus.pendingConfirmation.sqlLiteral) AND expires_at <= \(stamp)
                FOR UPDATE SKIP LOCKED
                """)
            let expiries = try rows.map { row in
                ScheduleTransition.expiry(scheduleID: try row.string("id"), merchantID: try row.string("merchant_id"), at: now)
            }
            _ = try await Self.applyWithEvents(expiries, on: write)
            return try rows.map { try $0.string("id") }
        }
    }

    public func schedulesWithClearContacts(limit: Int) async throws -> [Schedule] {
        try await billingRead { connection in
            try await connection.rows(
                "SELECT * FROM schedules WHERE receipt_email IS NOT NULL OR receipt_phone IS NOT NULL ORDER BY seq LIMIT \(limit)"
            ).map(Self.schedule)
        }
    }

    public func sealScheduleContacts(id: String, sealedContacts: [UInt8]?) async throws {
        try await write { write in
            _ = try await write.run(
                """
                UPDATE schedules SET sealed_contacts = \(bytea(sealedContacts)), receipt_email = NULL, receipt_phone = NULL
                WHERE id = \(id)
                """)
        }
    }

    public func schedulesToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws
        -> [(id: String, sealed: [UInt8])]
    {
        // The first four bytes of a sealed record are its key version, big-endian: bytea compares
        // bytewise, so a prefix below the header selects older versions.
        let header = bytea((0..<4).map { UInt8(truncatingIfNeeded: keyVersion >> (24 - 8 * $0)) })
        return try await billingRead { connection in
            try await connection.rows(
                """
                SELECT id, sealed_contacts FROM schedules
                WHERE merchant_id = \(merchantID) AND sealed_contacts IS NOT NULL AND substring(sealed_contacts FROM 1 FOR 4) < \(header)
                LIMIT \(limit)
                """
            ).map { (try $0.string("id"), try $0.blob("sealed_contacts")) }
        }
    }

    public func resealScheduleContacts(id: String, old: [UInt8], new: [UInt8]) async throws -> Bool {
        try await write { write in
            try await write.run(
                "UPDATE schedules SET sealed_contacts = \(bytea(new)) WHERE id = \(id) AND sealed_contacts = \(bytea(old)) RETURNING seq") == 1
        }
    }

    static func insertSteps(_ steps: [ScheduleStep], merchantID: String, on sql: some BillingSQL) async throws {
        guard !steps.isEmpty else { return }
        // One statement for all the steps (a year of weekly steps is one round trip, not 52); no
        // next attempt travels as ''.
        let stamp = Timestamp.string(Date())
        try await sql.run(
            """
            INSERT INTO schedule_steps (id, schedule_id, merchant_id, sequence, date, due_at, amount, currency, status, attempts,
                next_attempt_at, updated_at, binding)
            SELECT s.id, s.schedule_id, \(merchantID), s.sequence, s.date, s.due_at, s.amount, s.currency, s.status, s.attempts,
                NULLIF(s.next_attempt_at, ''), \(stamp), decode(NULLIF(s.binding, ''), 'hex')
            FROM unnest(\(steps.map(\.id))::text[], \(steps.map(\.scheduleID))::text[], \(steps.map { Int64($0.sequence) })::bigint[],
                \(steps.map(\.date.iso))::text[], \(steps.map { Timestamp.string($0.dueAt) })::text[], \(steps.map(\.amount))::bigint[],
                \(steps.map(\.currency.code))::text[], \(steps.map(\.status.rawValue))::text[], \(steps.map { Int64($0.attempts) })::bigint[],
                \(steps.map { $0.nextAttemptAt.map(Timestamp.string) ?? "" })::text[],
                \(steps.map { $0.binding.map { Encoding.hex($0) } ?? "" })::text[])
                AS s(id, schedule_id, sequence, date, due_at, amount, currency, status, attempts, next_attempt_at, binding)
            ORDER BY s.sequence
            """)
    }

    static func schedule(_ row: PostgresRowReader) throws -> Schedule {
        try Schedule(storedRow: row)
    }

    /// A schedule from its row and its already decoded plan.
    static func schedule(_ row: PostgresRowReader, plan: PlanTerms) throws -> Schedule {
        try Schedule(storedRow: row, plan: plan)
    }

    static func step(_ row: PostgresRowReader) throws -> ScheduleStep {
        try ScheduleStep(storedRow: row)
    }
}
