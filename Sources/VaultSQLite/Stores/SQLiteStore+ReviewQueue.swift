import Foundation
import Payments
public import Scheduler
import Vault

extension SQLiteStore: ReviewQueueStore {
    /// Two indexed reads under one snapshot: one-off transactions in review (`transactions_by_status`)
    /// and steps in review (the partial index `schedule_steps_in_review`) joined to their latest attempt
    /// (`transactions_step_attempt`), merged by the transactions' sequence; then the steps of the
    /// page by id. `CROSS JOIN` keeps the steps as the outer loop: without statistics SQLite
    /// otherwise walks every transaction of the merchant (`transactions_by_merchant`) and looks its
    /// step up, which is every charge ever made instead of the few hundred steps in review.
    public func reviewQueue(merchantID: String, afterSequence: Int64?, limit: Int) async throws -> [ReviewQueueEntry] {
        let after = afterSequence ?? Int64.min
        return try await database.read { connection in
            let transactions = try connection.query(
                """
                SELECT * FROM (
                    SELECT t.* FROM transactions AS t
                    WHERE t.merchant_id = \(merchantID) AND t.status = \(unescaped: TransactionStatus.needsReview.sqlLiteral) AND t.step_id IS NULL AND t.seq > \(after)
                    UNION ALL
                    SELECT t.* FROM schedule_steps AS s INDEXED BY schedule_steps_in_review CROSS JOIN transactions AS t ON t.step_id = s.id AND t.attempt = s.attempts
                    WHERE s.merchant_id = \(merchantID) AND s.status = \(unescaped: StepStatus.needsReview.sqlLiteral) AND t.merchant_id = \(merchantID) AND t.seq > \(after)
                ) ORDER BY seq LIMIT \(limit)
                """
            ).map(Self.transaction)
            let stepIDs = transactions.compactMap(\.stepID)
            var steps: [String: ScheduleStep] = [:]
            if !stepIDs.isEmpty {
                let ids = String(decoding: try JSONEncoder().encode(stepIDs), as: UTF8.self)
                for row in try connection.query(
                    "SELECT * FROM schedule_steps WHERE merchant_id = \(merchantID) AND id IN (SELECT value FROM json_each(\(ids)))")
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
        try await database.readOne("SELECT * FROM schedule_steps WHERE id = \(id) AND merchant_id = \(merchantID)").map(Self.step)
    }
}
