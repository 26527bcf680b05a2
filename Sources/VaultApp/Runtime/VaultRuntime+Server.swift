import Foundation
public import Hummingbird
public import Logging
public import Prometheus
import Scheduler
import Vault
public import VaultAPI

extension VaultRuntime {
    /// What the HTTP server serves over, from this runtime and its configuration.
    public var apiServices: APIServices {
        let configuration = configuration
        var services = APIServices(
            store: store, keyring: keyring, merchants: merchants, cards: cards, schedules: schedules, transactions: transactions,
            idempotency: idempotency, stepReviews: stepReviews, transactionReviews: transactionReviews, reviewQueue: reviewQueue, webhookEvents: webhookEvents, chargeRuns: chargeRuns,
            chargeRunOptions: { ChargeRunner.Options(configuration, asOf: $0) }, requestLimits: requestLimits, server: configuration.server,
            metrics: configuration.metrics,
            rateLimit: configuration.rateLimit, idempotencyRetentionHours: configuration.idempotencyRetentionHours)
        services.consolePolicy = configuration.console
        return services
    }
}

/// The HTTP application over an opened runtime, with what runs beside it: the metrics listener,
/// webhook and e-mail receipt delivery, the reconciler of transactions in doubt, the charge runs
/// started over HTTP, the refresh of the on-call gauges and the purge of ended capture sessions.
/// - Throws: `ConfigurationError` when the listener settings are refused.
public func buildApplication(
    runtime: VaultRuntime, logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
    onMetricsRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let reconcilerLogger = Logger(label: "vault.reconciler")
    return try buildApplication(
        services: runtime.apiServices,
        background: [
            WebhookDeliveryService(
                deliverer: runtime.webhookDeliverer(logger: logger), pollInterval: .seconds(max(1, runtime.configuration.webhooks.pollSeconds)),
                logger: logger),
            ReceiptDeliveryService(store: runtime.store, pollInterval: .seconds(max(1, runtime.configuration.receipts.pollSeconds)), logger: logger) {
                () throws(ReceiptsNotConfigured) in try runtime.receiptDeliverer(logger: logger)
            },
            ReconcileService(
                reconciler: runtime.reconciler(logger: reconcilerLogger), store: runtime.store,
                interval: .seconds(runtime.configuration.reconcile.intervalSeconds), logger: reconcilerLogger),
            ChargeRunService(queue: runtime.chargeRuns, store: runtime.store, logger: logger) { runtime.chargeRunner(logger: logger) },
            OperationsMetricsService(store: runtime.store, logger: logger),
            CaptureSessionPurgeService(
                purge: CaptureSessionPurge(store: runtime.store, retentionHours: runtime.configuration.capture.sessionRetentionHours),
                logger: logger),
        ],
        logger: logger, onServerRunning: onServerRunning, onMetricsRunning: onMetricsRunning)
}

/// ``buildRouter(services:rateLimiter:metricsRegistry:)`` over an opened runtime.
public func buildRouter(
    runtime: VaultRuntime, rateLimiter: RateLimiter? = nil, metricsRegistry: PrometheusCollectorRegistry? = nil
) -> Router<VaultRequestContext> {
    buildRouter(services: runtime.apiServices, rateLimiter: rateLimiter, metricsRegistry: metricsRegistry)
}

extension InProcessRequestLimits {
    /// The limits as configured (`rateLimit`, `server.failedAuthLimit`/`failedAuthWindowSeconds`),
    /// on the system clock unless one is given.
    public convenience init(configuration: VaultConfiguration, clock: (@Sendable () -> Duration)? = nil) {
        self.init(server: configuration.server, rateLimit: configuration.rateLimit, clock: clock)
    }
}
