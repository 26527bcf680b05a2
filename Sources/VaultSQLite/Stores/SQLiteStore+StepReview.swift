import Foundation
public import Payments
import Vault
public import Scheduler

extension SQLiteStore: StepReviewStore {
    public func latestAttempt(stepID: String, attempt: Int, merchantID: String) async throws -> Transaction? {
        try await database.read { connection in
            try connection.queryOne(
                "SELECT * FROM transactions WHERE step_id = ? AND attempt = ? AND merchant_id = ?", [stepID, attempt, merchantID]
            ).map(Self.transaction)
        }
    }

    public func stepsInReview(merchantID: String?) async throws -> Int {
        try await database.read { connection in
            var sql = "SELECT count(*) AS n FROM schedule_steps WHERE status = 'needs_review'"
            var arguments: [any SQLiteBindable] = []
            if let merchantID {
                sql += " AND merchant_id = ?"
                arguments.append(merchantID)
            }
            return try connection.queryOne(sql, arguments)?.int("n") ?? 0
        }
    }
}
