import Foundation
public import Payments
import Vault
public import Scheduler

extension SQLiteStore: StepReviewStore {
    public func latestAttempt(stepID: String, attempt: Int, merchantID: String) async throws -> Transaction? {
        try await database.readOne(
            "SELECT * FROM transactions WHERE step_id = \(stepID) AND attempt = \(attempt) AND merchant_id = \(merchantID)"
        ).map(Self.transaction)
    }

    public func stepsInReview(merchantID: String?) async throws -> Int {
        try await database.read { connection in
            // The partial index of steps in review, a merchant's slice of it when given.
            var sql: SQLiteQuery = """
                SELECT count(*) AS n FROM schedule_steps INDEXED BY schedule_steps_in_review
                WHERE status = \(unescaped: StepStatus.needsReview.sqlLiteral)
                """
            sql.and(merchantID) { "merchant_id = \($0)" }
            return try connection.queryOne(sql)?.int("n") ?? 0
        }
    }
}
