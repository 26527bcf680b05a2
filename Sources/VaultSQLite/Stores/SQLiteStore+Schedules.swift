public import Foundation
public import Vault
import Payments
public import Scheduler

extension SQLiteStore: ScheduleStore {
    public func insertSchedule(_ schedule: Schedule, steps: [ScheduleStep], audit: AuditEntry) async throws {
        let plan = try Schedule.legacyPlanText(schedule.plan)
        let storedPlan = try Schedule.storedPlanText(schedule.plan)
        try await database.write { connection in
            try connection.run(
                """
                INSERT INTO schedules (id, merchant_id, secure_card_id, status, plan, stored_plan, amount, currency, description, external_id, sealed_contacts,
                    time_zone, materialized_through, created_at, updated_at, confirmed_at, expires_at, paused_at, binding)
                VALUES (\(schedule.id), \(schedule.merchantID), \(schedule.secureCardReference), \(schedule.status.rawValue), \(plan), \(storedPlan),
                    \(schedule.amount), \(schedule.currency.code), \(schedule.description), \(schedule.externalID),
                    \(schedule.sealedContacts), \(schedule.plan.timeZone ?? "UTC"), \(schedule.materializedThrough?.iso),
                    \(Timestamp.string(schedule.createdAt)), \(Timestamp.string(schedule.updatedAt)),
                    \(schedule.confirmedAt.map(Timestamp.string)), \(schedule.expiresAt.map(Timestamp.string)),
                    \(schedule.pausedAt.map(Timestamp.string)), \(schedule.binding))
                """)
            try Self.insertSteps(steps, merchantID: schedule.merchantID, on: connection)
            try connection.appendAudit(audit)
        }
    }

    public func saveSchedule(
        _ schedule: Schedule, expectedStatus: ScheduleStatus, stepUpdates: [StepUpdate], newSteps: [ScheduleStep], audit: AuditEntry
    ) async throws {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE schedules SET secure_card_id = \(schedule.secureCardReference), status = \(schedule.status.rawValue),
                    amount = \(schedule.amount), description = \(schedule.description), receipt_email = NULL, receipt_phone = NULL,
                    sealed_contacts = \(schedule.sealedContacts), materialized_through = \(schedule.materializedThrough?.iso),
                    updated_at = \(Timestamp.string(schedule.updatedAt)), confirmed_at = \(schedule.confirmedAt.map(Timestamp.string)),
                    expires_at = \(schedule.expiresAt.map(Timestamp.string)), paused_at = \(schedule.pausedAt.map(Timestamp.string)),
                    binding = \(schedule.binding)
                WHERE id = \(schedule.id) AND merchant_id = \(schedule.merchantID) AND status = \(expectedStatus.rawValue)
                """)
            guard connection.changes == 1 else {
                let current = try connection.queryOne("SELECT status FROM schedules WHERE id = \(schedule.id)")?.string("status")
                throw ScheduleError.wrongStatus(current: current.flatMap(ScheduleStatus.init(rawValue:)) ?? expectedStatus, operation: audit.action)
            }
            let stamp = Timestamp.string(schedule.updatedAt)
            for update in stepUpdates {
                try connection.run(
                    """
                    UPDATE schedule_steps SET status = coalesce(\(update.status?.rawValue), status), amount = coalesce(\(update.amount),
                        amount), binding = coalesce(\(update.binding), binding), updated_at = \(stamp)
                    WHERE id = \(update.stepID) AND schedule_id = \(schedule.id) AND status = \(update.expectedStatus.rawValue)
                        AND (lease_until IS NULL OR lease_until <= \(stamp))
                    """)
                guard connection.changes == 1 else { throw ScheduleError.stepChanged(stepID: update.stepID) }
            }
            try Self.insertSteps(newSteps, merchantID: schedule.merchantID, on: connection)
            try connection.appendAudit(audit)
        }
    }

    public func schedule(merchantID: String, id: String) async throws -> Schedule? {
        try await database.readOne("SELECT * FROM schedules WHERE merchant_id = \(merchantID) AND id = \(id)").map(Self.schedule)
    }

    public func schedules(merchantID: String, status: ScheduleStatus?, secureCardReference: String?, afterSequence: Int64?, limit: Int) async throws
        -> [Schedule]
    {
        try await database.read { connection in
            var sql: SQLiteQuery = "SELECT * FROM schedules WHERE merchant_id = \(merchantID)"
            sql.and(status?.rawValue) { "status = \($0)" }
            sql.and(secureCardReference) { "secure_card_id = \($0)" }
            sql.and(afterSequence) { "seq > \($0)" }
            sql += " ORDER BY seq LIMIT \(limit)"
            return try connection.query(sql).map(Self.schedule)
        }
    }

    public func steps(scheduleID: String) async throws -> [ScheduleStep] {
        try await database.read { connection in
            try connection.query("SELECT * FROM schedule_steps WHERE schedule_id = \(scheduleID) ORDER BY sequence").map(Self.step)
        }
    }

    public func expireUnconfirmedSchedules(now: Date) async throws -> [String] {
        try await database.write { connection in
            let stamp = Timestamp.string(now)
            // The partial index of the schedules awaiting confirmation, named with its literal.
            let rows = try connection.query(
                """
                SELECT id, merchant_id FROM schedules INDEXED BY schedules_pending
                WHERE status = \(unescaped: ScheduleStatus.pendingConfirmation.sqlLiteral) AND expires_at <= \(stamp)
                """)
            for row in rows {
                let expiry = ScheduleTransition.expiry(scheduleID: try row.string("id"), merchantID: try row.string("merchant_id"), at: now)
                _ = try connection.apply(expiry, hasCallback: { _ in false })
            }
            return try rows.map { try $0.string("id") }
        }
    }

    static func insertSteps(_ steps: [ScheduleStep], merchantID: String, on connection: SQLiteConnection) throws {
        for step in steps {
            try connection.run(
                """
                INSERT INTO schedule_steps (id, schedule_id, merchant_id, sequence, date, due_at, amount, currency, status, attempts,
                    next_attempt_at, updated_at, binding)
                VALUES (\(step.id), \(step.scheduleID), \(merchantID), \(step.sequence), \(step.date.iso), \(Timestamp.string(step.dueAt)),
                    \(step.amount), \(step.currency.code), \(step.status.rawValue), \(step.attempts),
                    \(step.nextAttemptAt.map(Timestamp.string)), \(Timestamp.string(Date())), \(step.binding))
                """)
        }
    }

    static func schedule(_ row: SQLiteRow) throws -> Schedule {
        try Schedule(storedRow: row)
    }

    /// A schedule from its row and its already decoded plan.
    static func schedule(_ row: SQLiteRow, plan: PlanTerms) throws -> Schedule {
        try Schedule(storedRow: row, plan: plan)
    }

    public func schedulesWithClearContacts(limit: Int) async throws -> [Schedule] {
        try await database.read { connection in
            try connection.query(
                "SELECT * FROM schedules WHERE receipt_email IS NOT NULL OR receipt_phone IS NOT NULL ORDER BY seq LIMIT \(limit)"
            ).map(Self.schedule)
        }
    }

    public func schedulesToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws
        -> [(id: String, sealed: [UInt8])]
    {
        // The first four bytes of a sealed record are its key version, big-endian: blobs compare
        // bytewise, so `substr(...) < header` selects older versions.
        let header: [UInt8] = [UInt8(truncatingIfNeeded: keyVersion >> 24), UInt8(truncatingIfNeeded: keyVersion >> 16),
                               UInt8(truncatingIfNeeded: keyVersion >> 8), UInt8(truncatingIfNeeded: keyVersion)]
        return try await database.read { connection in
            try connection.query(
                """
                SELECT id, sealed_contacts FROM schedules
                WHERE merchant_id = \(merchantID) AND sealed_contacts IS NOT NULL AND substr(sealed_contacts, 1,
                    4) < \(header) LIMIT \(limit)
                """
            ).map { (try $0.string("id"), try $0.blob("sealed_contacts")) }
        }
    }

    public func resealScheduleContacts(id: String, old: [UInt8], new: [UInt8]) async throws -> Bool {
        try await database.write { connection in
            try connection.run("UPDATE schedules SET sealed_contacts = \(new) WHERE id = \(id) AND sealed_contacts = \(old)")
            return connection.changes == 1
        }
    }

    public func sealScheduleContacts(id: String, sealedContacts: [UInt8]?) async throws {
        try await database.write { connection in
            try connection.run(
                "UPDATE schedules SET sealed_contacts = \(sealedContacts), receipt_email = NULL, receipt_phone = NULL WHERE id = \(id)")
        }
    }

    static func step(_ row: SQLiteRow) throws -> ScheduleStep {
        try ScheduleStep(storedRow: row)
    }
}
