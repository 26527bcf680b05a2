import Foundation
public import Payments
import PostgresNIO
public import Scheduler
import Vault

extension PostgresStore: StepReviewStore {
    public func latestAttempt(stepID: String, attempt: Int, merchantID: String) async throws -> Transaction? {
        try await billingRead { connection in
            try await connection.row(
                "SELECT * FROM transactions WHERE step_id = \(stepID) AND attempt = \(attempt) AND merchant_id = \(merchantID)"
            ).map(Self.transaction)
        }
    }

    public func stepsInReview(merchantID: String?) async throws -> Int {
        try await billingRead { connection in
            try await connection.row(
                """
                SELECT count(*) AS n FROM schedule_steps
                WHERE status = \(unescaped: StepStatus.needsReview.sqlLiteral) AND (\(merchantID)::text IS NULL OR merchant_id = \(merchantID))
                """)?.int("n") ?? 0
        }
    }
}
