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

    /// The step's move first (refused, with nothing written, when its lease is no longer the
    /// attempt's runner's), then the attempt's transaction (an open attempt sent again reset).
    private static func record(_ attempt: ChargeAttempt, on connection: SQLiteConnection) throws {
        try connection.apply(attempt.stepTransition, hasCallback: { _ in false })
        try insert(attempt.transaction, on: connection, resettingOpen: true)
    }

    /// The step's guarded move with its events, the transaction's outcome, then the schedule's
    /// past-due move and completion, each applied only from the status the schedule has now (the
    /// API may have paused or cancelled it since the claim).
    private static func record(_ item: PreparedOutcome, on connection: SQLiteConnection, callbacks: inout [String: Bool]) throws -> RecordedOutcome {
        var known = callbacks
        defer { callbacks = known }
        func hasCallback(_ merchantID: String) throws -> Bool {
            if let found = known[merchantID] { return found }
            let found = try connection.merchantHasCallback(merchantID)
            known[merchantID] = found
            return found
        }
        try connection.apply(item.stepTransition, hasCallback: hasCallback)
        let transaction = item.transaction
        try connection.run(
            """
            UPDATE transactions SET status = \(transaction.status.rawValue), gateway_transaction_id = \(transaction.gatewayTransactionID),
                auth_code = \(transaction.authCode), response_code = \(transaction.responseCode),
                response_text = \(transaction.responseText),
                avs_result = \(transaction.avsResult), cvv_result = \(transaction.cvvResult), decline_code = \(transaction.declineCode),
                decline_category = \(transaction.declineCategory), error_code = \(transaction.errorCode),
                updated_at = \(Timestamp.string(transaction.updatedAt)), network_transaction_id = \(transaction.networkTransactionID),
                binding = \(transaction.binding)
            WHERE id = \(transaction.id)
            """)
        var recorded = RecordedOutcome()
        if let pastDue = item.pastDue {
            recorded.schedulePastDue = try connection.apply(pastDue, hasCallback: hasCallback)
        }
        if let completion = item.completion {
            recorded.scheduleCompleted = try connection.apply(completion, hasCallback: hasCallback)
        }
        return recorded
    }
}
