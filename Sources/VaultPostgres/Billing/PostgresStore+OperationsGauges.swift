import Foundation
import Payments
import PostgresNIO
public import Scheduler
import Vault

extension PostgresStore: OperationsGaugeStore {
    public func webhookBacklog() async throws -> WebhookBacklog {
        try await read { connection in
            let row = try await connection.row(
                "SELECT count(*) AS n, min(created_at) AS oldest FROM webhook_events WHERE status = \(unescaped: WebhookEventStatus.pending.sqlLiteral)", logger: logger)
            let oldest = try row?.optionalString("oldest").flatMap(Timestamp.parse)
            return WebhookBacklog(pending: try row?.int("n") ?? 0, oldestQueuedAt: oldest)
        }
    }

    public func stepsInDoubt() async throws -> Int {
        try await read { connection in
            try await connection.row(
                "SELECT count(DISTINCT step_id) AS n FROM transactions WHERE step_id IS NOT NULL AND status = \(unescaped: TransactionStatus.inDoubt.sqlLiteral)", logger: logger
            )?.int("n") ?? 0
        }
    }

    public func lastFinishedChargeRun() async throws -> ChargeRunRecord? {
        try await read { connection in
            try await connection.row(
                "SELECT * FROM charge_runs WHERE status IN (\(unescaped: ChargeRunStatus.finished.sqlLiterals)) AND dry_run = 0 ORDER BY finished_at DESC, seq DESC LIMIT 1",
                logger: logger
            ).map(Self.chargeRun)
        }
    }
}
