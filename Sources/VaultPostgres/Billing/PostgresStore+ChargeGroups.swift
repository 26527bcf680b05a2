import Foundation
import Payments
import PostgresNIO
import Scheduler
import Vault

/// A group of the runner's writes in a few statements instead of several per step: the attempts
/// of a group in one statement; the outcomes of a group in one statement for the steps and
/// transactions, one for the schedules they complete, one for their webhook events, and one at
/// COMMIT for their audit events (each chain's head locked once, after every other lock). The
/// steps' guards (lease, status) are conditions of those statements (a step whose guard no longer
/// holds is not written and is reported with the guard's refusal); any other refusal fails the
/// group's savepoint, and the group is then written again one step at a time, each a group of one
/// in its own savepoint, so a refused step still does not undo the others.
extension PostgresStore {
    /// Whether groups can be written by the batched statements: at least two, each step and
    /// transaction once (a statement updates a row once, where one-by-one writes would update it twice).
    static func isGroupable(stepIDs: [String], transactionIDs: [String]) -> Bool {
        stepIDs.count > 1 && Set(stepIDs).count == stepIDs.count && Set(transactionIDs).count == transactionIDs.count
    }

    /// Writes a group of attempts in one statement: each step's transition (`processing`, while
    /// still leased to its attempt's runner), and the attempt's transaction inserted (set back to
    /// `pending` when it is an open attempt sent again) only for the steps so written.
    /// - Returns: per attempt, in the order given, nil or ``StepLeaseError/leaseLost(stepID:)``.
    /// - Throws: any server error (the caller's savepoint then writes them one by one).
    static func recordAttemptGroup(_ attempts: [ChargeAttempt], on write: PostgresWrite) async throws -> [(any Error)?] {
        var rows = PostgresRowSet([
            ("target_step", "text"), ("id", "text"), ("merchant_id", "text"), ("type", "text"),
            ("status", "text"), ("amount", "bigint"), ("currency", "text"), ("secure_card_id", "text"), ("merchant_reference", "text"),
            ("card_type", "text"), ("masked_number", "text"), ("schedule_id", "text"), ("step_id", "text"), ("attempt", "bigint"),
            ("parent_id", "text"), ("idempotency_key", "text"), ("order_reference", "text"), ("description", "text"), ("gateway", "text"),
            ("gateway_transaction_id", "text"), ("created_at", "text"), ("updated_at", "text"), ("stored_credential", "text"),
            ("duplicate_mac", "bytea"), ("binding", "bytea"),
        ])
        for attempt in attempts {
            let transaction = attempt.transaction
            rows.append([
                attempt.step.id, transaction.id, transaction.merchantID,
                transaction.type.rawValue, transaction.status.rawValue, String(transaction.amount), transaction.currency.code,
                transaction.secureCardReference, transaction.merchantReference, transaction.cardType, transaction.maskedNumber,
                transaction.scheduleID, transaction.stepID, transaction.attempt.map { String($0) }, transaction.parentID,
                transaction.idempotencyKey, transaction.orderReference, transaction.description, transaction.gateway,
                transaction.gatewayTransactionID, Timestamp.string(transaction.createdAt), Timestamp.string(transaction.updatedAt),
                transaction.storedCredential?.rawValue, transaction.duplicateMAC.map { Encoding.hex($0) },
                transaction.binding.map { Encoding.hex($0) },
            ])
        }
        let transitions = attempts.map(\.stepTransition)
        var query = PostgresQuery(unsafeSQL: "WITH ")
        appendStepTransitions(transitions, to: &query)
        query.sql += ", i AS "
        rows.appendSelect(to: &query)
        query.append(
            """
            , opened AS (
                INSERT INTO transactions (id, merchant_id, type, status, amount, currency, secure_card_id, merchant_reference, card_type,
                    masked_number, schedule_id, step_id, attempt, parent_id, idempotency_key, order_reference, description, gateway,
                    gateway_transaction_id, created_at, updated_at, stored_credential, duplicate_mac, binding)
                SELECT id, merchant_id, type, status, amount, currency, secure_card_id, merchant_reference, card_type,
                    masked_number, schedule_id, step_id, attempt, parent_id, idempotency_key, order_reference, description, gateway,
                    gateway_transaction_id, created_at, updated_at, stored_credential, duplicate_mac, binding
                FROM i WHERE i.target_step IN (SELECT id FROM written) ORDER BY i.ord
                ON CONFLICT (id) DO UPDATE SET status =
            """, TransactionStatus.pending.rawValue, ", error_code = NULL, updated_at = excluded.updated_at")
        query.sql += """

                RETURNING 1)
            SELECT id FROM stepped
            """
        let stepped = Set(try await write.rows(prepared: query).map { try $0.string("id") })
        return try await refusals(transitions, stepped: stepped, on: write)
    }

    /// Writes a group of outcomes (in their schedules' order; a group of one when written one by
    /// one), in a few statements: the schedules that may change locked first (in id order), then
    /// the steps' guarded transitions and those steps' transactions in one statement, then the
    /// past-due moves (one step at a time: rare, and each may change its schedule again), then the
    /// completions of the schedules whose last open step this group settled, then the webhook
    /// events; the audit events are appended for the COMMIT (`appendAudit(_:)`: the merchant's
    /// chain head, the lock other writers of the merchant wait on, is taken last and held shortest).
    /// - Returns: per item, in the order given, what was recorded or the step guard's refusal
    ///   (``StepLeaseError/leaseLost(stepID:)``, ``StepReviewError/wrongStatus(current:)``).
    /// - Throws: any server error (the caller's savepoint then writes them one by one).
    static func recordOutcomeGroup(_ items: [PreparedOutcome], on write: PostgresWrite) async throws -> [Result<RecordedOutcome, any Error>] {
        let locking = Set(items.filter { $0.pastDue != nil || $0.completion != nil }.map(\.schedule.id))
        if !locking.isEmpty {
            // The schedules' rows first, then the steps': completion reads the other steps of a
            // schedule, which another runner may be settling at the same moment; the lock makes
            // the second see the first's committed step.
            try await write.run(prepared: "SELECT seq FROM schedules WHERE id = ANY(\(locking.sorted())::text[]) ORDER BY id COLLATE \"C\" FOR UPDATE")
        }
        var rows = PostgresRowSet([
            ("target_step", "text"), ("stamp", "text"), ("id", "text"), ("status", "text"), ("gateway_transaction_id", "text"), ("auth_code", "text"),
            ("response_code", "text"), ("response_text", "text"), ("avs_result", "text"), ("cvv_result", "text"), ("decline_code", "text"),
            ("decline_category", "text"), ("error_code", "text"), ("network_transaction_id", "text"), ("binding", "bytea"),
        ])
        for item in items {
            let transaction = item.transaction
            rows.append([
                item.step.id, Timestamp.string(transaction.updatedAt), transaction.id, transaction.status.rawValue, transaction.gatewayTransactionID,
                transaction.authCode, transaction.responseCode, transaction.responseText, transaction.avsResult, transaction.cvvResult,
                transaction.declineCode, transaction.declineCategory, transaction.errorCode, transaction.networkTransactionID,
                transaction.binding.map { Encoding.hex($0) },
            ])
        }
        let transitions = items.map(\.stepTransition)
        var settle = PostgresQuery(unsafeSQL: "WITH ")
        appendStepTransitions(transitions, to: &settle)
        settle.sql += ", i AS "
        rows.appendSelect(to: &settle)
        settle.sql += """
            , settled AS (
                UPDATE transactions t SET status = i.status, gateway_transaction_id = i.gateway_transaction_id, auth_code = i.auth_code,
                    response_code = i.response_code, response_text = i.response_text, avs_result = i.avs_result, cvv_result = i.cvv_result,
                    decline_code = i.decline_code, decline_category = i.decline_category, error_code = i.error_code, updated_at = i.stamp,
                    network_transaction_id = i.network_transaction_id, binding = i.binding
                FROM i WHERE t.id = i.id AND i.target_step IN (SELECT id FROM written)
                RETURNING 1)
            SELECT id FROM stepped
            """
        let stepped = Set(try await write.rows(prepared: settle).map { try $0.string("id") })
        let refusals = try await Self.refusals(transitions, stepped: stepped, on: write)
        let written = items.indices.filter { refusals[$0] == nil }

        var recorded = [RecordedOutcome](repeating: RecordedOutcome(), count: items.count)
        for index in written {
            // Applied from the schedule's status in the database now (the API may have paused or
            // cancelled it since the claim).
            guard let pastDue = items[index].pastDue else { continue }
            recorded[index].schedulePastDue = try await !apply([pastDue], on: write).isEmpty
        }

        // A schedule can complete only once all its steps are settled: at the last of its steps
        // this group wrote (one by one, the checks at the earlier ones find that step still open).
        var lastOfSchedule: [String: Int] = [:]
        for index in written where items[index].completion != nil {
            lastOfSchedule[items[index].schedule.id] = index
        }
        let completing = lastOfSchedule.values.sorted().compactMap { items[$0].completion }
        for schedule in try await apply(completing, on: write) {
            if let index = lastOfSchedule[schedule] { recorded[index].scheduleCompleted = true }
        }

        // The events in the order one-by-one writes would queue them.
        var audits: [PendingAuditEvent] = []
        var webhooks: [PendingWebhookEvent] = []
        var receipts: [PendingReceipt] = []
        for index in written {
            let item = items[index]
            audits += item.stepTransition.audits
            webhooks += item.stepTransition.webhooks
            receipts += item.stepTransition.receipts
            if recorded[index].schedulePastDue, let pastDue = item.pastDue {
                audits.append(pastDue.audit)
                if let event = pastDue.event { webhooks.append(event) }
            }
            if recorded[index].scheduleCompleted, let completion = item.completion {
                audits.append(completion.audit)
                if let event = completion.event { webhooks.append(event) }
            }
        }
        try await write.enqueueWebhooks(webhooks)
        try await write.enqueueReceipts(receipts)
        try await write.appendAudits(audits)

        return items.indices.map { index in
            if let refusal = refusals[index] { return .failure(refusal) }
            return .success(recorded[index])
        }
    }
}
