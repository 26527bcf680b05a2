import Foundation
import Payments
import PostgresNIO
public import Scheduler
import Vault

extension PostgresStore: ReviewQueueStore {
    /// One statement: one-off transactions in review and steps in review joined to their latest
    /// attempt (`transactions_step_attempt`), merged by the transactions' sequence; then the steps
    /// of the page by id.
    public func reviewQueue(merchantID: String, afterSequence: Int64?, limit: Int) async throws -> [ReviewQueueEntry] {
        let after = afterSequence ?? Int64.min
        return try await billingRead { connection in
            let transactions = try await connection.rows(
                """
                SELECT * FROM (
                    SELECT t.* FROM transactions AS t
                    WHERE t.merchant_id = \(merchantID) AND t.status = \(unescaped: TransactionStatus.needsReview.sqlLiteral) AND t.step_id IS NULL AND t.seq > \(after)
                    UNION ALL
                    SELECT t.* FROM schedule_steps AS s JOIN transactions AS t ON t.step_id = s.id AND t.attempt = s.attempts
                    WHERE s.merchant_id = \(merchantID) AND s.status = \(unescaped: StepStatus.needsReview.sqlLiteral) AND t.merchant_id = \(merchantID) AND t.seq > \(after)
                ) AS queue ORDER BY seq LIMIT \(limit)
                """
            ).map(Self.transaction)
            let stepIDs = transactions.compactMap(\.stepID)
            var steps: [String: ScheduleStep] = [:]
            if !stepIDs.isEmpty {
                for row in try await connection.rows(
                    "SELECT * FROM schedule_steps WHERE merchant_id = \(merchantID) AND id = ANY(\(stepIDs)::text[])")
                {
                    let step = try Self.step(row)
                    steps[step.id] = step
                }
            }
            return transactions.map { transaction in
                ReviewQueueEntry(transaction: transaction, step: transaction.stepID.flatMap { steps[$0] })
            }
        }
    }

    public func scheduleStep(id: String, merchantID: String) async throws -> ScheduleStep? {
        try await billingRead { connection in
            try await connection.row("SELECT * FROM schedule_steps WHERE id = \(id) AND merchant_id = \(merchantID)").map(Self.step)
        }
    }
}
