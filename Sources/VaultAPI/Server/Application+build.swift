import Foundation
public import Hummingbird
public import Logging
import NIOCore
public import Prometheus
import ServiceLifecycle
import Scheduler
import Vault

/// Builds the HTTP application over an opened runtime.
/// - Parameters:
///   - runtime: database, keys and services.
///   - logger: the server's logger.
///   - onServerRunning: called with the bound port once listening (tests bind port 0).
/// - Throws: `ConfigurationError` when the listener settings are refused: plain HTTP beyond
///   loopback without `server.allowPlaintext`, unusable `server.tls` files.
public func buildApplication(
    runtime: VaultRuntime, logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let server = runtime.configuration.server
    let connections = OpenConnections(limit: VaultHTTPServer.fittedConnectionLimit(server.maxConnections, logger: logger))
    var app = Application(
        router: buildRouter(runtime: runtime),
        server: try VaultHTTPServer.builder(server, connections: connections),
        configuration: .init(address: .hostname(server.host, port: server.port), serverName: "vault"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
        logger: logger)
    app.addServices(IdempotencyPurgeService(store: runtime.store, retentionHours: runtime.configuration.idempotencyRetentionHours, logger: logger))
    app.addServices(WebhookDeliveryService(
        deliverer: runtime.webhookDeliverer(logger: logger), pollInterval: .seconds(max(1, runtime.configuration.webhooks.pollSeconds)), logger: logger))
    app.addServices(ReconcileService(
        reconciler: runtime.reconciler(logger: Logger(label: "vault.reconciler")), store: runtime.store,
        interval: .seconds(runtime.configuration.reconcile.intervalSeconds), logger: Logger(label: "vault.reconciler")))
    app.addServices(ChargeRunService(queue: runtime.chargeRuns, store: runtime.store, logger: logger) {
        runtime.chargeRunner(logger: logger)
    })
    return app
}

/// Builds the router: operational routes at the root, the API under `/v1` behind authentication;
/// a known path asked with another method is a 405 with `Allow`.
/// - Parameters:
///   - rateLimiter: per-key limits kept in this process (tests pass one with a manual clock); by
///     default the runtime's ``VaultRuntime/requestLimits`` (shared by every server of a
///     PostgreSQL database), else the configured limits in this process's memory.
///   - metricsRegistry: where request metrics go and what `/metrics` serves; by default the
///     process-wide registry behind swift-metrics (tests pass their own).
///
/// Everything decided from the head (authentication, the failed-authentication limit, the rate
/// limit, the role) runs before the body is read. Every `/v1` route states the roles it admits
/// where it is declared (``APIRoutes``).
public func buildRouter(
    runtime: VaultRuntime, rateLimiter: RateLimiter? = nil, metricsRegistry: PrometheusCollectorRegistry? = nil
) -> Router<VaultRequestContext> {
    buildAuthorizedRouter(runtime: runtime, rateLimiter: rateLimiter, metricsRegistry: metricsRegistry).router
}

/// ``buildRouter(runtime:rateLimiter:metricsRegistry:)`` with the roles each `/v1` route admits.
func buildAuthorizedRouter(
    runtime: VaultRuntime, rateLimiter: RateLimiter? = nil, metricsRegistry: PrometheusCollectorRegistry? = nil
) -> (router: Router<VaultRequestContext>, authorization: RouteAuthorization) {
    let registry = metricsRegistry ?? VaultMetrics.registry
    let router = Router(context: VaultRequestContext.self)
    // Outside the error envelope, so it counts the status the access line records.
    router.add(middleware: RequestMetricsMiddleware(factory: PrometheusMetricsFactory(registry: registry)))
    router.add(middleware: ErrorEnvelopeMiddleware())
    let operational = router.group().add(middleware: UnknownQueryParameterMiddleware<VaultRequestContext>())
    HealthController(runtime: runtime).addRoutes(to: operational)
    MetricsController(registry: registry).addRoutes(to: operational)
    OpenAPIController().addRoutes(to: operational)

    let limits: any RequestLimitStore =
        if let rateLimiter {
            InProcessRequestLimits(rates: rateLimiter, failures: FailedAuthenticationLimiter(configuration: runtime.configuration.server))
        } else {
            runtime.requestLimits ?? InProcessRequestLimits(configuration: runtime.configuration)
        }
    let authenticated = router.group("v1")
        .add(middleware: AuthenticationMiddleware(merchants: runtime.merchants, limits: limits))
        .group(context: AuthenticatedContext.self)
        .add(middleware: RateLimitMiddleware(limits: limits))
    let configuration = runtime.configuration
    let authorization = RouteAuthorization()
    // Each route group adds the role check, then these (so a refused role is never read nor remembered).
    let api = APIRoutes(authenticated: authenticated, afterRoleCheck: { group in
        group
            .add(middleware: UnknownQueryParameterMiddleware<AuthenticatedContext>())
            .add(middleware: RequestBodyMiddleware<AuthenticatedContext>(maxBodyBytes: configuration.server.maxBodyBytes))
            .add(middleware: IdempotencyMiddleware(service: runtime.idempotency, transactions: runtime.transactions))
            .add(middleware: RequestTimeoutMiddleware<AuthenticatedContext>(timeout: .seconds(configuration.server.requestTimeoutSeconds)))
    }, authorization: authorization, prefix: "v1")
    AuditController(store: runtime.store).addRoutes(to: api)
    CustomFieldsController(store: runtime.store).addRoutes(to: api)
    SecureCardsController(cards: runtime.cards).addRoutes(to: api)
    SchedulesController(schedules: runtime.schedules, transactions: runtime.transactions).addRoutes(to: api)
    StepReviewController(schedules: runtime.schedules, reviews: runtime.stepReviews).addRoutes(to: api)
    TransactionsController(transactions: runtime.transactions, store: runtime.store).addRoutes(to: api)
    TransactionReviewController(reviews: runtime.transactionReviews, transactions: runtime.transactions).addRoutes(to: api)
    StatsController(store: runtime.store).addRoutes(to: api)
    ChargeRunsController(runtime: runtime, logger: Logger(label: "vault.runner")).addRoutes(to: api)
    // After the last route, so it wraps only the router's not-found responder (see the type).
    router.add(middleware: MethodNotAllowedMiddleware(routes: RouteMethods(router.routes)))
    return (router, authorization)
}

/// Forgets idempotency keys past their retention, hourly, until graceful shutdown.
struct IdempotencyPurgeService: Service {
    let store: any IdempotencyStore
    let retentionHours: Int
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let purged = try await store.purgeIdempotencyKeys(olderThan: Date().addingTimeInterval(-Double(retentionHours) * 3600))
                if purged > 0 { logger.info("purged idempotency keys", metadata: ["count": "\(purged)"]) }
            } catch {
                logger.warning("idempotency purge failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(3600)) }
        }
    }
}
