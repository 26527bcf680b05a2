public import Foundation
import PostgresNIO
public import Scheduler
public import Vault

extension PostgresStore: ScheduleBindingStore {
    public func schedulesWithUnboundRows(limit: Int) async throws -> [Schedule] {
        try await billingRead { connection in
            try await connection.rows(
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
        try await write { write in
            for schedule in schedules {
                _ = try await write.run("UPDATE schedules SET binding = \(bytea(schedule.binding)) WHERE id = \(schedule.id) AND binding IS NULL")
            }
            for step in steps {
                _ = try await write.run("UPDATE schedule_steps SET binding = \(bytea(step.binding)) WHERE id = \(step.id) AND binding IS NULL")
            }
            if let audit { try await write.appendAudit(PendingAuditEvent(audit)) }
        }
    }

    public func refuseSteps(_ refusals: [(stepID: String, audit: AuditEntry)], owner: String, now: Date) async throws {
        guard !refusals.isEmpty else { return }
        let stamp = Timestamp.string(now)
        try await write { write in
            for refusal in refusals {
                let refused = try await write.run(
                    """
                    UPDATE schedule_steps SET status = \(StepStatus.needsReview.rawValue), lease_owner = NULL, lease_until = NULL,
                        updated_at = \(stamp)
                    WHERE id = \(refusal.stepID) AND lease_owner = \(owner)
                    RETURNING 1
                    """)
                if refused == 1 { try await write.appendAudit(PendingAuditEvent(refusal.audit)) }
            }
        }
    }
}
