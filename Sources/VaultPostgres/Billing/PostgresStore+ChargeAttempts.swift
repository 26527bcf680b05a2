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
                errors.append(try await Self.eachInSavepoint(write) {
                    if let refusal = try await Self.recordAttemptGroup([attempt], on: write)[0] { throw refusal }
                }.failure)
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
        let groupable: [(index: Int, item: PreparedOutcome)] = order.compactMap { index in
            guard case .success(let item) = prepared[index] else { return nil }
            return (index, item)
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
            for index in order where results[index] == nil {
                switch prepared[index] {
                case .failure(let error):
                    results[index] = .failure(error)
                case .success(let item):
                    results[index] = try await Self.eachInSavepoint(write) { try await Self.recordOutcomeGroup([item], on: write)[0].get() }
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
    /// refusal) rolls back only the savepoint and is returned; an error of the connection or the
    /// server (gone mid-write, or read-only after a failover) is thrown, failing the whole write,
    /// so nothing of it is reported written.
    static func eachInSavepoint<T: Sendable>(
        _ write: PostgresWrite, _ body: () async throws -> T
    ) async throws -> Result<T, any Error> {
        do {
            return .success(try await write.savepoint { _ in try await body() })
        } catch where PostgresFailure.isOfTheStatementAlone(error) {
            return .failure(error)
        }
    }
}

extension Result {
    /// The error, if it is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
