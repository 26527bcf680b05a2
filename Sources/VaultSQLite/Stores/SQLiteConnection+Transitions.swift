import Foundation
import Payments
import Scheduler
import Vault

/// The one way the SQLite engine applies the scheduler's transitions: a guarded update, and the
/// transition's events only when that update changed the row. The statuses come from the
/// transition and the domain's status lists; none is written here.
extension SQLiteConnection {
    /// Applies `transition` to its step: `UPDATE ... WHERE id = <step> [AND lease_owner = <owner> AND
    /// status IN <charged by runs>] [AND status = <status>]`, then its audit and webhook events and e-mail receipts.
    /// - Parameter hasCallback: whether a merchant has a `callbackUrl` (cached by the caller).
    /// - Throws: the guard's refusal when no row changed (``StepLeaseError/leaseLost(stepID:)``,
    ///   ``StepReviewError/wrongStatus(current:)``), nothing of the transition written; `SQLiteError`.
    func apply(_ transition: StepTransition, hasCallback: (String) throws -> Bool) throws {
        let stamp = Timestamp.string(transition.at)
        var update: SQLiteQuery = "UPDATE schedule_steps SET status = \(transition.to.rawValue), updated_at = \(stamp)"
        switch transition.effect {
        case .startsAttempt(let number):
            update += ", attempts = \(number)"
        case .settlesAttempt(let nextAttemptAt, let holdBackUntil):
            update += """
                , next_attempt_at = \(nextAttemptAt.map(Timestamp.string)), lease_owner = NULL,
                    lease_until = \(holdBackUntil.map(Timestamp.string))
                """
        }
        update += " WHERE id = \(transition.stepID)"
        update.and(transition.requires.leaseOwner) { owner in
            "lease_owner = \(owner) AND status IN (\(list: StepStatus.chargedByRuns.map(\.rawValue)))"
        }
        update.and(transition.requires.status) { status in "status = \(status.rawValue)" }
        try run(update)
        if changes == 0 {
            let current = try transition.requires.status.flatMap { _ in
                try queryOne("SELECT status FROM schedule_steps WHERE id = \(transition.stepID)").flatMap { StepStatus(rawValue: try $0.string("status")) }
            }
            if let refusal = transition.requires.refusal(stepID: transition.stepID, currentStatus: current) { throw refusal }
        }
        for audit in transition.audits { try appendAudit(audit) }
        for event in transition.webhooks { try enqueueWebhook(event, merchantHasCallback: hasCallback(event.merchantID)) }
        for receipt in transition.receipts { try enqueueReceipt(receipt) }
    }

    /// Applies `transition` to its schedule when its status is still one of `from` (and, for a
    /// completion, none of its steps is open), cancelling the steps it names, then its events.
    /// - Returns: whether the schedule moved (else nothing was written).
    /// - Throws: `SQLiteError`.
    func apply(_ transition: ScheduleTransition, hasCallback: (String) throws -> Bool) throws -> Bool {
        let stamp = Timestamp.string(transition.at)
        var update: SQLiteQuery = """
            UPDATE schedules SET status = \(transition.to.rawValue), paused_at = coalesce(\(transition.pausedAt.map(Timestamp.string)), paused_at),
                updated_at = \(stamp)
            WHERE id = \(transition.scheduleID) AND status IN (\(list: transition.from.map(\.rawValue)))
            """
        if transition.requiresNoOpenStep {
            // No open step: comparisons with each settled status, not NOT IN (SQLite builds a
            // temporary index for a list of more than two constants on every run).
            update += " AND NOT EXISTS (SELECT 1 FROM schedule_steps WHERE schedule_id = \(transition.scheduleID)"
            for status in StepStatus.settled { update += " AND status <> \(status.rawValue)" }
            update += ")"
        }
        try run(update)
        guard changes > 0 else { return false }
        if !transition.cancelledSteps.isEmpty {
            try run(
                """
                UPDATE schedule_steps SET status = \(StepStatus.cancelled.rawValue), updated_at = \(stamp)
                WHERE schedule_id = \(transition.scheduleID) AND status IN (\(list: transition.cancelledSteps.map(\.rawValue)))
                """)
        }
        try appendAudit(transition.audit)
        if let event = transition.event {
            try enqueueWebhook(event, merchantHasCallback: hasCallback(event.merchantID))
        }
        return true
    }
}
