import Foundation
import Payments
import PostgresNIO
import Scheduler
import Vault

/// A group of the runner's writes in a few statements instead of several per step (issue 15): the
/// attempts of a group in one statement; the outcomes of a group in one statement for the steps
/// and transactions, one for the schedules they complete, one for their webhook events, and one
/// at COMMIT for their audit events (each chain's head locked once, after every other lock). The lease checks are conditions
/// of those statements (a step whose lease is no longer the writer's is not written and is
/// reported `leaseLost`); any other refusal fails the group's savepoint, and the group is then
/// written again one step at a time, each in its own savepoint, so a refused step still does not
/// undo the others.
extension PostgresStore {
    /// One outcome of a group, with the runner that wrote it.
    struct OutcomeGroupItem {
        var prepared: PreparedOutcome
        var owner: String?
    }

    /// Whether groups can be written by the batched statements: at least two, each step and
    /// transaction once (a statement updates a row once, where one-by-one writes would update it twice).
    static func isGroupable(stepIDs: [String], transactionIDs: [String]) -> Bool {
        stepIDs.count > 1 && Set(stepIDs).count == stepIDs.count && Set(transactionIDs).count == transactionIDs.count
    }

    /// Writes a group of attempts in one statement: each step set `processing` while still leased
    /// to its attempt's runner, and the attempt's transaction inserted (set back to `pending` when
    /// it is an open attempt sent again) only for the steps so written.
    /// - Returns: per attempt, in the order given, nil or ``StepLeaseError/leaseLost(stepID:)``.
    /// - Throws: any server error (the caller's savepoint then writes them one by one).
    static func recordAttemptGroup(_ attempts: [ChargeAttempt], on write: PostgresWrite) async throws -> [(any Error)?] {
        var rows = PostgresRowSet([
            ("target_step", "text"), ("owner", "text"), ("attempts", "bigint"), ("id", "text"), ("merchant_id", "text"), ("type", "text"),
            ("status", "text"), ("amount", "bigint"), ("currency", "text"), ("secure_card_id", "text"), ("merchant_reference", "text"),
            ("card_type", "text"), ("masked_number", "text"), ("schedule_id", "text"), ("step_id", "text"), ("attempt", "bigint"),
            ("parent_id", "text"), ("idempotency_key", "text"), ("order_reference", "text"), ("description", "text"), ("gateway", "text"),
            ("gateway_transaction_id", "text"), ("created_at", "text"), ("updated_at", "text"), ("stored_credential", "text"),
            ("duplicate_mac", "bytea"),
        ])
        for attempt in attempts {
            let transaction = attempt.transaction
            rows.append([
                attempt.step.id, attempt.leaseOwner, String(transaction.attempt ?? attempt.step.attempts), transaction.id, transaction.merchantID,
                transaction.type.rawValue, transaction.status.rawValue, String(transaction.amount), transaction.currency.code,
                transaction.secureCardReference, transaction.merchantReference, transaction.cardType, transaction.maskedNumber,
                transaction.scheduleID, transaction.stepID, transaction.attempt.map { String($0) }, transaction.parentID,
                transaction.idempotencyKey, transaction.orderReference, transaction.description, transaction.gateway,
                transaction.gatewayTransactionID, Timestamp.string(transaction.createdAt), Timestamp.string(transaction.updatedAt),
                transaction.storedCredential?.rawValue, transaction.duplicateMAC.map { Encoding.hex($0) },
            ])
        }
        var query = PostgresQuery(unsafeSQL: "WITH i AS ")
        rows.appendSelect(to: &query)
        query.sql += """
            , stepped AS (
                UPDATE schedule_steps s SET status = 'processing', attempts = i.attempts, updated_at = i.updated_at
                FROM i WHERE s.id = i.target_step AND (i.owner IS NULL OR s.lease_owner = i.owner)
                RETURNING s.id),
            opened AS (
                INSERT INTO transactions (id, merchant_id, type, status, amount, currency, secure_card_id, merchant_reference, card_type,
                    masked_number, schedule_id, step_id, attempt, parent_id, idempotency_key, order_reference, description, gateway,
                    gateway_transaction_id, created_at, updated_at, stored_credential, duplicate_mac)
                SELECT id, merchant_id, type, status, amount, currency, secure_card_id, merchant_reference, card_type,
                    masked_number, schedule_id, step_id, attempt, parent_id, idempotency_key, order_reference, description, gateway,
                    gateway_transaction_id, created_at, updated_at, stored_credential, duplicate_mac
                FROM i WHERE i.owner IS NULL OR i.target_step IN (SELECT id FROM stepped) ORDER BY i.ord
                ON CONFLICT (id) DO UPDATE SET status = 'pending', error_code = NULL, updated_at = excluded.updated_at
                RETURNING 1)
            SELECT id FROM stepped
            """
        let written = Set(try await write.rows(query).map { try $0.string("id") })
        return attempts.map { attempt in
            attempt.leaseOwner == nil || written.contains(attempt.step.id) ? nil : StepLeaseError.leaseLost(stepID: attempt.step.id)
        }
    }

    /// Writes a group of outcomes (in their schedules' order) as the one-by-one write does, in a
    /// few statements: the schedules that may change locked first (in id order), then the steps
    /// still leased to their runners and those steps' transactions in one statement, then the
    /// past-due policies (one step at a time: rare, and each may change its schedule again), then
    /// the completions of the schedules whose last open step this group settled, then the webhook
    /// events; the audit events are appended for the COMMIT (`appendAudit(_:)`: the merchant's
    /// chain head, the lock other writers of the merchant wait on, is taken last and held shortest).
    /// - Returns: per item, in the order given, what was recorded or ``StepLeaseError/leaseLost(stepID:)``.
    /// - Throws: any server error (the caller's savepoint then writes them one by one).
    static func recordOutcomeGroup(_ items: [OutcomeGroupItem], on write: PostgresWrite) async throws -> [Result<RecordedOutcome, any Error>] {
        let locking = Set(items.filter { $0.prepared.pastDue != nil || $0.prepared.completion != nil }.map(\.prepared.schedule.id))
        if !locking.isEmpty {
            // The schedules' rows first, then the steps', as one by one: completion reads the other
            // steps of a schedule, which another runner may be settling at the same moment.
            try await write.run("SELECT seq FROM schedules WHERE id = ANY(\(locking.sorted())::text[]) ORDER BY id COLLATE \"C\" FOR UPDATE")
        }
        var rows = PostgresRowSet([
            ("target_step", "text"), ("owner", "text"), ("step_status", "text"), ("next_attempt_at", "text"), ("hold_until", "text"),
            ("stamp", "text"), ("id", "text"), ("status", "text"), ("gateway_transaction_id", "text"), ("auth_code", "text"),
            ("response_code", "text"), ("response_text", "text"), ("avs_result", "text"), ("cvv_result", "text"), ("decline_code", "text"),
            ("decline_category", "text"), ("error_code", "text"), ("network_transaction_id", "text"),
        ])
        for item in items {
            let outcome = item.prepared.outcome
            let transaction = outcome.transaction
            // As one by one: an unsettled step is held back (lease without owner); a settled one has
            // no next attempt, an unsettled one keeps its retry date.
            let holdUntil = outcome.stepStatus == .processing
                ? Timestamp.string(transaction.updatedAt.addingTimeInterval(outcome.holdBack)) : nil
            let nextAttemptAt = outcome.nextAttemptAt ?? (outcome.stepStatus == .processing ? item.prepared.step.nextAttemptAt : nil)
            rows.append([
                item.prepared.step.id, item.owner, outcome.stepStatus.rawValue, Timestamp.optional(nextAttemptAt), holdUntil,
                Timestamp.string(transaction.updatedAt), transaction.id, transaction.status.rawValue, transaction.gatewayTransactionID,
                transaction.authCode, transaction.responseCode, transaction.responseText, transaction.avsResult, transaction.cvvResult,
                transaction.declineCode, transaction.declineCategory, transaction.errorCode, transaction.networkTransactionID,
            ])
        }
        var settle = PostgresQuery(unsafeSQL: "WITH i AS ")
        rows.appendSelect(to: &settle)
        settle.sql += """
            , stepped AS (
                UPDATE schedule_steps s SET status = i.step_status, next_attempt_at = i.next_attempt_at, lease_owner = NULL,
                    lease_until = i.hold_until, updated_at = i.stamp
                FROM i WHERE s.id = i.target_step AND (i.owner IS NULL OR s.lease_owner = i.owner)
                RETURNING s.id),
            settled AS (
                UPDATE transactions t SET status = i.status, gateway_transaction_id = i.gateway_transaction_id, auth_code = i.auth_code,
                    response_code = i.response_code, response_text = i.response_text, avs_result = i.avs_result, cvv_result = i.cvv_result,
                    decline_code = i.decline_code, decline_category = i.decline_category, error_code = i.error_code, updated_at = i.stamp,
                    network_transaction_id = i.network_transaction_id
                FROM i WHERE t.id = i.id AND (i.owner IS NULL OR i.target_step IN (SELECT id FROM stepped))
                RETURNING 1)
            SELECT id FROM stepped
            """
        let stepped = Set(try await write.rows(settle).map { try $0.string("id") })
        let written = items.indices.filter { items[$0].owner == nil || stepped.contains(items[$0].prepared.step.id) }

        var recorded = [RecordedOutcome](repeating: RecordedOutcome(), count: items.count)
        for index in written {
            guard let pastDue = items[index].prepared.pastDue else { continue }
            let schedule = items[index].prepared.schedule.id
            let stamp = Timestamp.string(items[index].prepared.outcome.transaction.updatedAt)
            // The schedule's status is the one in the database now: only an active or past-due
            // schedule takes the policy.
            let changed = try await write.run(
                """
                UPDATE schedules SET status = \(pastDue.status.rawValue),
                    paused_at = CASE WHEN \(pastDue.status.rawValue) = 'paused' THEN \(stamp) ELSE paused_at END, updated_at = \(stamp)
                WHERE id = \(schedule) AND status IN ('active', 'past_due')
                RETURNING seq
                """)
            guard changed > 0 else { continue }
            if pastDue.status == .cancelled {
                try await write.run(
                    """
                    UPDATE schedule_steps SET status = 'cancelled', updated_at = \(stamp)
                    WHERE schedule_id = \(schedule) AND status IN ('scheduled', 'retry_pending')
                    """)
            }
            recorded[index].schedulePastDue = true
        }

        // A schedule can complete only once all its steps are settled: at the last of its steps
        // this group wrote (one by one, the checks at the earlier ones find that step still open).
        var lastOfSchedule: [String: Int] = [:]
        for index in written where items[index].prepared.completion != nil {
            lastOfSchedule[items[index].prepared.schedule.id] = index
        }
        if !lastOfSchedule.isEmpty {
            var completing = PostgresRowSet([("id", "text"), ("stamp", "text")])
            for index in lastOfSchedule.values.sorted() {
                completing.append([items[index].prepared.schedule.id, Timestamp.string(items[index].prepared.outcome.transaction.updatedAt)])
            }
            var complete = PostgresQuery(unsafeSQL: "UPDATE schedules sc SET status = 'completed', updated_at = c.stamp FROM ")
            completing.appendSelect(to: &complete)
            complete.sql += """
                 AS c WHERE sc.id = c.id AND sc.status = 'active' AND NOT EXISTS (
                    SELECT 1 FROM schedule_steps st WHERE st.schedule_id = c.id
                    AND st.status NOT IN ('approved', 'failed', 'skipped', 'cancelled'))
                RETURNING sc.id
                """
            for row in try await write.rows(complete) {
                let schedule = try row.string("id")
                if let index = lastOfSchedule[schedule] { recorded[index].scheduleCompleted = true }
            }
        }

        // The events in the order one-by-one writes would queue them.
        var audits: [PendingAuditEvent] = []
        var webhooks: [PendingWebhookEvent] = []
        for index in written {
            let prepared = items[index].prepared
            audits.append(prepared.audit)
            if let event = prepared.transactionEvent { webhooks.append(event) }
            if let event = prepared.reviewEvent { webhooks.append(event) }
            if recorded[index].schedulePastDue, let pastDue = prepared.pastDue {
                audits.append(pastDue.audit)
                webhooks.append(pastDue.event)
            }
            if recorded[index].scheduleCompleted, let completion = prepared.completion {
                audits.append(completion.audit)
                webhooks.append(completion.event)
            }
        }
        try await write.enqueueWebhooks(webhooks)
        try await write.appendAudits(audits)

        let isWritten = Set(written)
        return items.indices.map { index in
            isWritten.contains(index) ? .success(recorded[index]) : .failure(StepLeaseError.leaseLost(stepID: items[index].prepared.step.id))
        }
    }
}
