import Foundation
import Payments
public import Scheduler
import Vault

extension SQLiteStore: OperationsGaugeStore {
    public func webhookBacklog() async throws -> WebhookBacklog {
        try await database.read { connection in
            let row = try connection.queryOne("SELECT count(*) AS n, min(created_at) AS oldest FROM webhook_events WHERE status = \(unescaped: WebhookEventStatus.pending.sqlLiteral)")
            let oldest = try row?.optionalString("oldest").flatMap(Timestamp.parse)
            return WebhookBacklog(pending: try row?.int("n") ?? 0, oldestQueuedAt: oldest)
        }
    }

    public func stepsInDoubt() async throws -> Int {
        try await database.read { connection in
            try connection.queryOne(
                "SELECT count(DISTINCT step_id) AS n FROM transactions WHERE step_id IS NOT NULL AND status = \(unescaped: TransactionStatus.inDoubt.sqlLiteral)")?.int("n") ?? 0
        }
    }

    public func lastFinishedChargeRun() async throws -> ChargeRunRecord? {
        try await database.read { connection in
            try connection.queryOne(
                "SELECT * FROM charge_runs WHERE status IN (\(unescaped: ChargeRunStatus.finished.sqlLiterals)) AND dry_run = 0 ORDER BY finished_at DESC, seq DESC LIMIT 1"
            ).map(Self.chargeRun)
        }
    }
}
