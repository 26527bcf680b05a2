import Foundation
import Payments
import PostgresNIO
public import Scheduler
import Synchronization
import Vault

extension PostgresStore {
    /// Each attempt in a savepoint of one transaction. With its runner's ``ChargeAttempt/leaseOwner``,
    /// the step must still be leased to that runner: an attempt of a runner whose lease expired and
    /// was taken over is refused (``StepLeaseError/leaseLost``), so it neither resets the taker's
    /// attempt nor calls the gateway.
    public func recordAttempts(_ attempts: [ChargeAttempt]) async throws -> [(any Error)?] {
        guard !attempts.isEmpty else { return [] }
        let grouped = writesChargeGroups.load(ordering: .relaxed)
            && Self.isGroupable(stepIDs: attempts.map(\.step.id), transactionIDs: attempts.map(\.transaction.id))
        return try await write { write in
            // The group in one statement; when the server refuses any of it, each attempt again
            // in its own savepoint, so only the refused one fails.
            if grouped, case .success(let errors) = try await Self.eachInSavepoint(write, { try await Self.recordAttemptGroup(attempts, on: write) }) {
                return errors
            }
            var errors: [(any Error)?] = []
            for attempt in attempts {
                errors.append(try await Self.eachInSavepoint(write) { try await Self.record(attempt, on: write) }.failure)
            }
            return errors
        }
    }

    /// Each outcome in a savepoint of one transaction, in the order of their schedules' ids (two
    /// runners' groups lock schedules in the same order, so they cannot deadlock); results in the
    /// order given. With its runner's ``AttemptOutcome/leaseOwner``, an outcome is written only
    /// while the step is still leased to that runner (``StepLeaseError/leaseLost``).
    public func recordOutcomes(_ outcomes: [AttemptOutcome]) async throws -> [Result<RecordedOutcome, any Error>] {
        guard !outcomes.isEmpty else { return [] }
        // Events, bodies and timestamps are built here; the write only links, inserts and updates.
        let prepared = outcomes.map { outcome in Result { try PreparedOutcome(outcome) } }
        let order = outcomes.indices.sorted { (outcomes[$0].schedule.id, $0) < (outcomes[$1].schedule.id, $1) }
        // The group's outcomes a few statements for all (those an operator resolves, checked
        // against the step's status, one by one).
        let groupable: [(index: Int, item: OutcomeGroupItem)] = order.compactMap { index in
            guard outcomes[index].outcome.expectedStepStatus == nil, case .success(let item) = prepared[index] else { return nil }
            return (index, OutcomeGroupItem(prepared: item, owner: outcomes[index].leaseOwner))
        }
        let grouped = writesChargeGroups.load(ordering: .relaxed) && Self.isGroupable(outcomes, groupable.map(\.index))
        return try await write { write in
            var results = [Result<RecordedOutcome, any Error>?](repeating: nil, count: outcomes.count)
            if grouped {
                // When the server refuses any of it, each outcome again in its own savepoint below.
                let items = groupable.map(\.item)
                if case .success(let written) = try await Self.eachInSavepoint(write, { try await Self.recordOutcomeGroup(items, on: write) }) {
                    for (entry, result) in zip(groupable, written) { results[entry.index] = result }
                }
            }
            var callbacks: [String: Bool] = [:]
            for index in order where results[index] == nil {
                switch prepared[index] {
                case .failure(let error):
                    results[index] = .failure(error)
                case .success(let item):
                    let owner = outcomes[index].leaseOwner
                    results[index] = try await Self.eachInSavepoint(write) {
                        try await Self.record(item, owner: owner, on: write, callbacks: &callbacks)
                    }
                }
            }
            return results.map { $0! }
        }
    }

    /// Whether the outcomes at `indices` can be written as a group: each step and transaction once,
    /// and no past-due policy on a schedule with another step in the group (one by one, a
    /// cancelling policy cancels only the steps of the schedule not yet written).
    static func isGroupable(_ outcomes: [AttemptOutcome], _ indices: [Int]) -> Bool {
        guard isGroupable(stepIDs: indices.map { outcomes[$0].step.id }, transactionIDs: indices.map { outcomes[$0].outcome.transaction.id })
        else { return false }
        var perSchedule: [String: Int] = [:]
        for index in indices { perSchedule[outcomes[index].schedule.id, default: 0] += 1 }
        return !indices.contains { index in
            outcomes[index].outcome.stepStatus == .failed && outcomes[index].outcome.pastDuePolicy != nil
                && perSchedule[outcomes[index].schedule.id, default: 0] > 1
        }
    }

    /// Runs `body` in a savepoint: an error of the item (a constraint, a lost lease, a domain
    /// refusal) rolls back only the savepoint and is returned; an error of the connection (the
    /// server gone mid-write) is thrown, failing the whole write, so nothing of it is reported
    /// written.
    static func eachInSavepoint<T: Sendable>(
        _ write: PostgresWrite, _ body: () async throws -> T
    ) async throws -> Result<T, any Error> {
        do {
            return .success(try await write.savepoint { _ in try await body() })
        } catch let error as PSQLError where error.serverInfo == nil {
            throw error
        } catch {
            return .failure(error)
        }
    }

    private static func record(_ attempt: ChargeAttempt, on write: PostgresWrite) async throws {
        let transaction = attempt.transaction
        let stamp = Timestamp.string(transaction.updatedAt)
        let attempts = Int64(transaction.attempt ?? attempt.step.attempts)
        var update: PostgresQuery = """
            UPDATE schedule_steps SET status = 'processing', attempts = \(attempts), updated_at = \(stamp) WHERE id = \(attempt.step.id)
            """
        if let owner = attempt.leaseOwner { update.append(" AND lease_owner = ", owner) }
        update.sql += " RETURNING seq"
        guard try await write.run(update) == 1 || attempt.leaseOwner == nil else {
            throw StepLeaseError.leaseLost(stepID: attempt.step.id)
        }
        try await insert(transaction, on: write, resettingOpen: true)
    }

    private static func record(
        _ item: PreparedOutcome, owner: String?, on write: PostgresWrite, callbacks: inout [String: Bool]
    ) async throws -> RecordedOutcome {
        let transaction = item.outcome.transaction
        let stamp = Timestamp.string(transaction.updatedAt)
        let schedule = item.schedule
        if item.pastDue != nil || item.completion != nil {
            // The schedule's row first, then the step's: completion reads the other steps of the
            // schedule, which another runner may be settling at the same moment; the lock makes the
            // second see the first's committed step.
            try await write.run("SELECT seq FROM schedules WHERE id = \(schedule.id) FOR UPDATE")
        }
        if let expected = item.outcome.expectedStepStatus {
            let current = try await write.row("SELECT status FROM schedule_steps WHERE id = \(item.step.id) FOR UPDATE")
                .flatMap { StepStatus(rawValue: try $0.string("status")) }
            guard let current, current == expected else { throw StepReviewError.wrongStatus(current: current ?? .cancelled) }
        }
        // An unsettled step is held back (lease without owner) so the same run does not claim it
        // again at once, and so a later lookup happens after the gateway had time to finish.
        let holdUntil = item.outcome.stepStatus == .processing
            ? Timestamp.string(transaction.updatedAt.addingTimeInterval(item.outcome.holdBack)) : nil
        // A settled step (approved, failed) has no next attempt; an unsettled one keeps its retry date.
        let nextAttemptAt = item.outcome.nextAttemptAt ?? (item.outcome.stepStatus == .processing ? item.step.nextAttemptAt : nil)
        var update: PostgresQuery = """
            UPDATE schedule_steps SET status = \(item.outcome.stepStatus.rawValue), next_attempt_at = \(Timestamp.optional(nextAttemptAt)),
                lease_owner = NULL, lease_until = \(holdUntil), updated_at = \(stamp)
            WHERE id = \(item.step.id)
            """
        if let owner { update.append(" AND lease_owner = ", owner) }
        update.sql += " RETURNING seq"
        guard try await write.run(update) == 1 || owner == nil else {
            throw StepLeaseError.leaseLost(stepID: item.step.id)
        }
        try await writeOutcome(transaction, on: write, requiringMerchant: false)
        func hasCallback(_ merchantID: String) async throws -> Bool {
            if let known = callbacks[merchantID] { return known }
            let found = try await write.merchantHasCallback(merchantID)
            callbacks[merchantID] = found
            return found
        }
        try await write.appendAudit(item.audit)
        if let event = item.transactionEvent {
            try await write.enqueueWebhook(event, merchantHasCallback: hasCallback(event.merchantID))
        }
        if let event = item.reviewEvent {
            try await write.enqueueWebhook(event, merchantHasCallback: hasCallback(event.merchantID))
        }
        var recorded = RecordedOutcome()
        if let pastDue = item.pastDue {
            // The schedule's status is the one in the database now (the API may have paused or
            // cancelled it since the claim): only an active or past-due schedule takes the policy.
            let changed = try await write.run(
                """
                UPDATE schedules SET status = \(pastDue.status.rawValue),
                    paused_at = CASE WHEN \(pastDue.status.rawValue) = 'paused' THEN \(stamp) ELSE paused_at END, updated_at = \(stamp)
                WHERE id = \(schedule.id) AND status IN ('active', 'past_due')
                RETURNING seq
                """)
            if changed > 0 {
                if pastDue.status == .cancelled {
                    try await write.run(
                        """
                        UPDATE schedule_steps SET status = 'cancelled', updated_at = \(stamp)
                        WHERE schedule_id = \(schedule.id) AND status IN ('scheduled', 'retry_pending')
                        """)
                }
                try await write.appendAudit(pastDue.audit)
                try await write.enqueueWebhook(pastDue.event, merchantHasCallback: hasCallback(pastDue.event.merchantID))
                recorded.schedulePastDue = true
            }
        }
        if let completion = item.completion {
            // Completed when it is still active and this was its last open step.
            let changed = try await write.run(
                """
                UPDATE schedules SET status = 'completed', updated_at = \(stamp)
                WHERE id = \(schedule.id) AND status = 'active' AND NOT EXISTS (
                    SELECT 1 FROM schedule_steps WHERE schedule_id = \(schedule.id)
                    AND status NOT IN ('approved', 'failed', 'skipped', 'cancelled'))
                RETURNING seq
                """)
            if changed > 0 {
                try await write.appendAudit(completion.audit)
                try await write.enqueueWebhook(completion.event, merchantHasCallback: hasCallback(completion.event.merchantID))
                recorded.scheduleCompleted = true
            }
        }
        return recorded
    }
}

extension Result {
    /// The error, if it is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
