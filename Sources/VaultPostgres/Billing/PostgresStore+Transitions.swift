import Foundation
import Payments
import PostgresNIO
import Scheduler
import Vault

/// The one way the PostgreSQL engine applies the scheduler's transitions, for a group of any size
/// (one by one is a group of one): the steps' guarded updates as common table expressions of the
/// statement that also writes their transactions, and the schedules' guarded updates in one
/// statement. The statuses come from the transitions and the domain's status lists; none is
/// written here.
extension PostgresStore {
    /// The statuses a runner's guarded writes require of its leased step, as SQL literals.
    static let chargedByRuns = StepStatus.chargedByRuns.sqlLiterals

    /// Appends `tr AS (...), stepped AS (...), written AS (...)` to a `WITH` clause: `stepped`, the
    /// ids of the steps the guarded updates changed; `written`, those and the steps of unguarded
    /// transitions (whose writes go ahead whatever the row), for the rest of the statement to
    /// write only their transactions.
    static func appendStepTransitions(_ transitions: [StepTransition], to query: inout PostgresQuery) {
        var rows = PostgresRowSet([
            ("step", "text"), ("guarded", "boolean"), ("owner", "text"), ("expected", "text"), ("to_status", "text"), ("stamp", "text"),
            ("attempts", "bigint"), ("settles", "boolean"), ("next_attempt_at", "text"), ("hold_until", "text"),
        ])
        for transition in transitions {
            var attempts: String?
            var settles = false
            var nextAttemptAt: Date?
            var holdUntil: Date?
            switch transition.effect {
            case .startsAttempt(let number):
                attempts = String(number)
            case .settlesAttempt(let next, let hold):
                (settles, nextAttemptAt, holdUntil) = (true, next, hold)
            }
            rows.append([
                transition.stepID, transition.requires == .unguarded ? "false" : "true", transition.requires.leaseOwner,
                transition.requires.status?.rawValue, transition.to.rawValue, Timestamp.string(transition.at), attempts,
                settles ? "true" : "false", Timestamp.optional(nextAttemptAt), Timestamp.optional(holdUntil),
            ])
        }
        query.sql += "tr AS "
        rows.appendSelect(to: &query)
        query.sql += """
            , stepped AS (
                UPDATE schedule_steps s SET status = tr.to_status, updated_at = tr.stamp, attempts = coalesce(tr.attempts, s.attempts),
                    next_attempt_at = CASE WHEN tr.settles THEN tr.next_attempt_at ELSE s.next_attempt_at END,
                    lease_owner = CASE WHEN tr.settles THEN NULL ELSE s.lease_owner END,
                    lease_until = CASE WHEN tr.settles THEN tr.hold_until ELSE s.lease_until END
                FROM tr WHERE s.id = tr.step AND (tr.owner IS NULL OR (s.lease_owner = tr.owner AND s.status IN (\(Self.chargedByRuns))))
                    AND (tr.expected IS NULL OR s.status = tr.expected)
                RETURNING s.id),
            written AS (SELECT id FROM stepped UNION SELECT step FROM tr WHERE NOT tr.guarded)
            """
    }

    /// Per transition, in order: nil when it was applied (its step in `stepped`, or unguarded),
    /// else its guard's refusal, the current status read (one statement) only for refused
    /// transitions guarded by a status.
    static func refusals(_ transitions: [StepTransition], stepped: Set<String>, on write: PostgresWrite) async throws -> [(any Error)?] {
        let refused = transitions.filter { !stepped.contains($0.stepID) }
        var current: [String: StepStatus] = [:]
        let reading = refused.filter { $0.requires.status != nil }.map(\.stepID)
        if !reading.isEmpty {
            for row in try await write.rows("SELECT id, status FROM schedule_steps WHERE id = ANY(\(reading)::text[])") {
                current[try row.string("id")] = StepStatus(rawValue: try row.string("status"))
            }
        }
        return transitions.map { transition in
            stepped.contains(transition.stepID) ? nil : transition.requires.refusal(stepID: transition.stepID, currentStatus: current[transition.stepID])
        }
    }

    /// Applies schedule transitions in one statement: each schedule moves when its status is still
    /// one of its transition's `from` (and, for a completion, none of its steps is open), the
    /// steps it names cancelled with it. The caller appends the events of those moved.
    /// - Returns: the ids of the schedules moved.
    static func apply(_ transitions: [ScheduleTransition], on write: PostgresWrite) async throws -> Set<String> {
        guard !transitions.isEmpty else { return [] }
        var rows = PostgresRowSet([
            ("id", "text"), ("from_statuses", "text"), ("to_status", "text"), ("paused_at", "text"), ("stamp", "text"),
            ("requires_no_open", "boolean"), ("cancelled_steps", "text"),
        ])
        for transition in transitions {
            rows.append([
                transition.scheduleID, transition.from.map(\.rawValue).joined(separator: ","), transition.to.rawValue,
                Timestamp.optional(transition.pausedAt), Timestamp.string(transition.at), transition.requiresNoOpenStep ? "true" : "false",
                transition.cancelledSteps.map(\.rawValue).joined(separator: ","),
            ])
        }
        var query = PostgresQuery(unsafeSQL: "WITH c AS ")
        rows.appendSelect(to: &query)
        query.append(
            """
            , moved AS (
                UPDATE schedules sc SET status = c.to_status, paused_at = coalesce(c.paused_at, sc.paused_at), updated_at = c.stamp
                FROM c WHERE sc.id = c.id AND sc.status = ANY(string_to_array(c.from_statuses, ','))
                    AND (NOT c.requires_no_open OR NOT EXISTS (
                        SELECT 1 FROM schedule_steps st WHERE st.schedule_id = c.id AND st.status <> ALL(
            """, StepStatus.settled.map(\.rawValue), "::text[])))")
        query.append(
            """

                RETURNING sc.id, c.cancelled_steps, c.stamp),
            cancelled AS (
                UPDATE schedule_steps st SET status =
            """, StepStatus.cancelled.rawValue, ", updated_at = m.stamp FROM moved m")
        query.sql += " WHERE st.schedule_id = m.id AND st.status = ANY(string_to_array(m.cancelled_steps, ',')) RETURNING 1) SELECT id FROM moved"
        return Set(try await write.rows(query).map { try $0.string("id") })
    }

    /// Applies schedule transitions in one statement (``apply(_:on:)``), then the events of those
    /// that moved, in the order given.
    /// - Returns: the ids of the schedules moved, in the order given.
    static func applyWithEvents(_ transitions: [ScheduleTransition], on write: PostgresWrite) async throws -> [String] {
        let moved = try await apply(transitions, on: write)
        let applied = transitions.filter { moved.contains($0.scheduleID) }
        try await write.enqueueWebhooks(applied.compactMap(\.event))
        try await write.appendAudits(applied.map(\.audit))
        return applied.map(\.scheduleID)
    }
}
