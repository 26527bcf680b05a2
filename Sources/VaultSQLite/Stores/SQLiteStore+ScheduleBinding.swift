public import Foundation
public import Scheduler
public import Vault

extension SQLiteStore: ScheduleBindingStore {
    public func schedulesWithUnboundRows(limit: Int) async throws -> [Schedule] {
        try await database.read { connection in
            try connection.query(
                """
                SELECT * FROM schedules
                WHERE id IN (SELECT id FROM schedules WHERE binding IS NULL UNION SELECT schedule_id FROM schedule_steps WHERE binding IS NULL)
                ORDER BY seq LIMIT \(limit)
                """
            ).map(Self.schedule)
        }
    }

    public func bindScheduleRows(
        schedules: [(id: String, binding: [UInt8])], steps: [(id: String, binding: [UInt8])], audit: AuditEntry?
    ) async throws {
        try await database.write { connection in
            for schedule in schedules {
                try connection.run("UPDATE schedules SET binding = \(schedule.binding) WHERE id = \(schedule.id) AND binding IS NULL")
            }
            for step in steps {
                try connection.run("UPDATE schedule_steps SET binding = \(step.binding) WHERE id = \(step.id) AND binding IS NULL")
            }
            if let audit { try connection.appendAudit(audit) }
        }
    }

    public func refuseSteps(_ refusals: [(stepID: String, audit: AuditEntry)], owner: String, now: Date) async throws {
        guard !refusals.isEmpty else { return }
        let stamp = Timestamp.string(now)
        try await database.write { connection in
            for refusal in refusals {
                try connection.run(
                    """
                    UPDATE schedule_steps SET status = \(StepStatus.needsReview.rawValue), lease_owner = NULL, lease_until = NULL,
                        updated_at = \(stamp)
                    WHERE id = \(refusal.stepID) AND lease_owner = \(owner)
                    """)
                if connection.changes == 1 { try connection.appendAudit(refusal.audit) }
            }
        }
    }
}
