import Foundation
public import Logging
import Metrics
public import Payments
public import ServiceLifecycle

/// Settles transactions whose gateway answer was lost, in the background of `vault serve`: a
/// pass every `interval` until graceful shutdown. Several servers run it at once and share the
/// work through the store's claims.
///
/// After each pass the `/metrics` gauges `vault_transactions_in_doubt` and
/// `vault_transactions_needs_review` (one-off transactions waiting for the gateway and for an
/// operator, all merchants) are refreshed, and `vault_reconciled_transactions_total{verdict}` counts
/// what the passes decided.
public struct ReconcileService: Service {
    /// The reconciler each pass uses.
    public let reconciler: TransactionReconciler
    /// Where the gauges' counts are read.
    public let store: any TransactionReconciliationStore
    /// Time between the end of one pass and the start of the next.
    public let interval: Duration
    /// Where passes that settled something, and failed passes, are reported.
    public let logger: Logger

    /// Creates the service.
    public init(reconciler: TransactionReconciler, store: any TransactionReconciliationStore, interval: Duration, logger: Logger) {
        self.reconciler = reconciler
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    /// Runs passes until graceful shutdown or cancellation.
    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let now = Date()
                let summary = try await reconciler.reconcile(now: now, interval: interval / .seconds(1))
                if summary.total > 0 { summary.log(to: logger) }
                summary.count()
                let counts = try await store.unsettledTransactionCounts(
                    merchantID: nil, pendingBefore: now.addingTimeInterval(-TransactionReconciler.requestBound))
                Gauge(label: VaultMetricNames.transactionsInDoubt).record(counts.inDoubt)
                Gauge(label: VaultMetricNames.transactionsNeedsReview).record(counts.needsReview)
            } catch {
                logger.warning("reconciliation pass failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}

extension ReconciliationSummary {
    /// Adds this pass's verdicts to `vault_reconciled_transactions_total{verdict}`.
    func count() {
        for (verdict, number) in [("settled", settled), ("not_charged", notCharged), ("still_in_doubt", stillInDoubt), ("needs_review", needsReview)]
        where number > 0 {
            Counter(label: "vault_reconciled_transactions_total", dimensions: [("verdict", verdict)]).increment(by: number)
        }
    }

    /// One line: a notice when something was settled, a warning when something went to review.
    public func log(to logger: Logger) {
        let metadata: Logger.Metadata = [
            "settled": "\(settled)", "notCharged": "\(notCharged)", "stillInDoubt": "\(stillInDoubt)", "needsReview": "\(needsReview)",
        ]
        if needsReview > 0 {
            logger.warning("transactions in doubt need an operator's review (GET /v1/transactions?status=needs_review)", metadata: metadata)
        } else if settled + notCharged > 0 {
            logger.notice("settled transactions in doubt", metadata: metadata)
        }
    }
}
