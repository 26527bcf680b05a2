import Foundation
import Payments
import Vault
public import Scheduler

extension SQLiteStore {
    public func recordAttempts(_ attempts: [ChargeAttempt]) async throws -> [(any Error)?] {
        try await database.writeEach(attempts) { connection in
            { attempt in try Self.record(attempt, on: connection) }
        }.map { result in
            guard case .failure(let error) = result else { return nil }
            return error
        }
    }

    public func recordOutcomes(_ outcomes: [AttemptOutcome]) async throws -> [Result<RecordedOutcome, any Error>] {
        // Events, bodies and timestamps are built here, on the caller's task; the write body only
        // links, inserts and updates.
        let prepared = outcomes.map { outcome in Result { try PreparedOutcome(outcome) } }
        return try await database.writeEach(prepared) { connection in
            var callbacks: [String: Bool] = [:]
            return { item in try Self.record(try item.get(), on: connection, callbacks: &callbacks) }
        }
    }

    private static func record(_ attempt: ChargeAttempt, on connection: SQLiteConnection) throws {
        let transaction = attempt.transaction
        let stamp = Timestamp.string(transaction.updatedAt)
        try insert(transaction, on: connection, resettingOpen: true)
        try connection.run(
            """
            UPDATE schedule_steps SET status = 'processing', attempts = \(transaction.attempt ?? attempt.step.attempts),
                updated_at = \(stamp) WHERE id = \(attempt.step.id)
            """)
    }

    private static func record(_ item: PreparedOutcome, on connection: SQLiteConnection, callbacks: inout [String: Bool]) throws -> RecordedOutcome {
        let transaction = item.outcome.transaction
        let stamp = Timestamp.string(transaction.updatedAt)
        func hasCallback(_ merchantID: String) throws -> Bool {
            if let known = callbacks[merchantID] { return known }
            let found = try connection.merchantHasCallback(merchantID)
            callbacks[merchantID] = found
            return found
        }
        if let expected = item.outcome.expectedStepStatus {
            let current = try connection.queryOne("SELECT status FROM schedule_steps WHERE id = \(item.step.id)")
                .flatMap { StepStatus(rawValue: try $0.string("status")) }
            guard let current, current == expected else { throw StepReviewError.wrongStatus(current: current ?? .cancelled) }
        }
        try connection.run(
            """
            UPDATE transactions SET status = \(transaction.status.rawValue), gateway_transaction_id = \(transaction.gatewayTransactionID),
                auth_code = \(transaction.authCode), response_code = \(transaction.responseCode),
                response_text = \(transaction.responseText),
                avs_result = \(transaction.avsResult), cvv_result = \(transaction.cvvResult), decline_code = \(transaction.declineCode),
                decline_category = \(transaction.declineCategory), error_code = \(transaction.errorCode), updated_at = \(stamp),
                network_transaction_id = \(transaction.networkTransactionID)
            WHERE id = \(transaction.id)
            """)
        // An unsettled step is held back (lease without owner) so the same run does not claim it
        // again at once, and so a later lookup happens after the gateway had time to finish.
        let holdUntil = item.outcome.stepStatus == .processing
            ? Timestamp.string(transaction.updatedAt.addingTimeInterval(item.outcome.holdBack)) : nil
        // A settled step (approved, failed) has no next attempt; an unsettled one keeps its retry date.
        let nextAttemptAt = item.outcome.nextAttemptAt ?? (item.outcome.stepStatus == .processing ? item.step.nextAttemptAt : nil)
        try connection.run(
            """
            UPDATE schedule_steps SET status = \(item.outcome.stepStatus.rawValue),
                next_attempt_at = \(nextAttemptAt.map(Timestamp.string)), lease_owner = NULL, lease_until = \(holdUntil),
                updated_at = \(stamp) WHERE id = \(item.step.id)
            """)
        try connection.appendAudit(item.audit)
        if let event = item.transactionEvent {
            try connection.enqueueWebhook(event, merchantHasCallback: hasCallback(event.merchantID))
        }
        if let event = item.reviewEvent {
            try connection.enqueueWebhook(event, merchantHasCallback: hasCallback(event.merchantID))
        }
        var recorded = RecordedOutcome()
        let schedule = item.schedule
        if let pastDue = item.pastDue {
            // The schedule's status is the one in the database now (the API may have paused or
            // cancelled it since the claim): only an active or past-due schedule takes the policy.
            try connection.run(
                """
                UPDATE schedules SET status = \(pastDue.status.rawValue),
                    paused_at = CASE WHEN \(pastDue.status.rawValue) = 'paused' THEN \(stamp) ELSE paused_at END, updated_at = \(stamp)
                WHERE id = \(schedule.id) AND status IN ('active', 'past_due')
                """)
            if connection.changes > 0 {
                if pastDue.status == .cancelled {
                    try connection.run(
                        """
                        UPDATE schedule_steps SET status = 'cancelled', updated_at = \(stamp) WHERE schedule_id = \(schedule.id)
                            AND status IN ('scheduled', 'retry_pending')
                        """)
                }
                try connection.appendAudit(pastDue.audit)
                try connection.enqueueWebhook(pastDue.event, merchantHasCallback: hasCallback(pastDue.event.merchantID))
                recorded.schedulePastDue = true
            }
        }
        if let completion = item.completion {
            // Completed when it is still active and this was its last open step. (Comparisons, not
            // NOT IN: SQLite builds a temporary index for a list of more than two constants on every run.)
            try connection.run(
                """
                UPDATE schedules SET status = 'completed', updated_at = \(stamp)
                WHERE id = \(schedule.id) AND status = 'active' AND NOT EXISTS (
                    SELECT 1 FROM schedule_steps WHERE schedule_id = \(schedule.id)
                    AND status <> 'approved' AND status <> 'failed' AND status <> 'skipped' AND status <> 'cancelled')
                """)
            if connection.changes > 0 {
                try connection.appendAudit(completion.audit)
                try connection.enqueueWebhook(completion.event, merchantHasCallback: hasCallback(completion.event.merchantID))
                recorded.scheduleCompleted = true
            }
        }
        return recorded
    }
}
