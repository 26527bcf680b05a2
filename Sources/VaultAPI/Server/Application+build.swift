import Foundation
public import Hummingbird
public import Logging
import NIOCore
public import Prometheus
public import ServiceLifecycle
import Payments
import Scheduler
import Vault
import VaultConsole

/// Builds the HTTP application over `services`.
/// - Parameters:
///   - services: the store, domain services and HTTP settings.
///   - background: services that run beside the server and stop with it (the composition root's
///     webhook delivery, reconciler and charge runs), after the idempotency purge.
///   - logger: the server's logger.
///   - onServerRunning: called with the bound port once listening (tests bind port 0).
///   - onMetricsRunning: called with the metrics listener's bound port once it listens.
/// - Throws: `ConfigurationError` when the listener settings are refused: plain HTTP beyond
///   loopback without `server.allowPlaintext`, unusable `server.tls` files.
///
/// `/metrics` runs on its own listener (``MetricsSettings``, started beside the API as a service),
/// never on the API's: it counts every merchant's traffic.
public func buildApplication(
    services: APIServices, background: [any Service], logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
    onMetricsRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let server = services.server
    let connections = OpenConnections(
        limit: VaultHTTPServer.fittedConnectionLimit(server.maxConnections, logger: logger), limitPerAddress: server.maxConnectionsPerAddress)
    var app = Application(
        router: buildRouter(services: services),
        server: try VaultHTTPServer.builder(server, connections: connections),
        configuration: .init(address: .hostname(server.host, port: server.port), serverName: "vault"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
        logger: logger)
    if services.metrics.enabled {
        app.addServices(buildMetricsApplication(settings: services.metrics, logger: logger, onServerRunning: onMetricsRunning))
    }
    app.addServices(IdempotencyPurgeService(store: services.store, retentionHours: services.idempotencyRetentionHours, logger: logger))
    app.addServices(background)
    return app
}

/// Builds the router: operational routes at the root, the API under `/v1` behind authentication;
/// a known path asked with another method is a 405 with `Allow`.
/// - Parameters:
///   - rateLimiter: per-key limits kept in this process (tests pass one with a manual clock); by
///     default the services' ``APIServices/requestLimits`` (shared by every server of a
///     PostgreSQL database), else the configured limits in this process's memory.
///   - metricsRegistry: where request metrics go; by default the process-wide registry behind
///     swift-metrics, which the metrics listener serves (tests pass their own).
///
/// Everything decided from the head (authentication, the failed-authentication limit, the rate
/// limit, the role) runs before the body is read. Every `/v1` route states the roles it admits
/// where it is declared (``APIRoutes``).
public func buildRouter(
    services: APIServices, rateLimiter: RateLimiter? = nil, metricsRegistry: PrometheusCollectorRegistry? = nil
) -> Router<VaultRequestContext> {
    buildAuthorizedRouter(services: services, rateLimiter: rateLimiter, metricsRegistry: metricsRegistry).router
}

/// ``buildRouter(services:rateLimiter:metricsRegistry:)`` with the roles each `/v1` route admits.
func buildAuthorizedRouter(
    services: APIServices, rateLimiter: RateLimiter? = nil, metricsRegistry: PrometheusCollectorRegistry? = nil
) -> (router: Router<VaultRequestContext>, authorization: RouteAuthorization) {
    let registry = metricsRegistry ?? VaultMetrics.registry
    let router = Router(context: VaultRequestContext.self)
    // Outside the error envelope, so it counts the status the access line records.
    router.add(middleware: RequestMetricsMiddleware(factory: PrometheusMetricsFactory(registry: registry)))
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: ErrorEnvelopeMiddleware())
    let operational = router.group().add(middleware: UnknownQueryParameterMiddleware<VaultRequestContext>())
    HealthController(store: services.store, keyring: services.keyring).addRoutes(to: operational)
    OpenAPIController().addRoutes(to: operational)

    let limits: any RequestLimitStore =
        if let rateLimiter {
            InProcessRequestLimits(rates: rateLimiter, failures: FailedAuthenticationLimiter(configuration: services.server))
        } else {
            services.requestLimits ?? InProcessRequestLimits(server: services.server, rateLimit: services.rateLimit)
        }
    let authenticated = router.group("v1")
        .add(middleware: AuthenticationMiddleware(merchants: services.merchants, limits: limits))
        .group(context: AuthenticatedContext.self)
        .add(middleware: RateLimitMiddleware(limits: limits))
    let server = services.server
    let authorization = RouteAuthorization()
    // Each route group adds the role check, then these (so a refused role is never read nor remembered).
    let api = APIRoutes(authenticated: authenticated, afterRoleCheck: { group in
        group
            .add(middleware: UnknownQueryParameterMiddleware<AuthenticatedContext>())
            .add(middleware: RequestBodyMiddleware<AuthenticatedContext>(maxBodyBytes: server.maxBodyBytes))
            .add(middleware: IdempotencyMiddleware(service: services.idempotency, transactions: services.transactions))
            .add(middleware: RequestTimeoutMiddleware<AuthenticatedContext>(timeout: .seconds(server.requestTimeoutSeconds)))
    }, authorization: authorization, prefix: "v1")
    let cursorKeys = ListCursorKeys(keyring: services.keyring)
    AuditController(store: services.store, cursorKeys: cursorKeys).addRoutes(to: api)
    CustomFieldsController(store: services.store).addRoutes(to: api)
    SecureCardsController(cards: services.cards, cursorKeys: cursorKeys, searchSlots: services.searchSlots).addRoutes(to: api)
    SchedulesController(schedules: services.schedules, transactions: services.transactions, cursorKeys: cursorKeys).addRoutes(to: api)
    StepReviewController(schedules: services.schedules, reviews: services.stepReviews).addRoutes(to: api)
    TransactionsController(
        transactions: services.transactions, cursorKeys: cursorKeys, searchSlots: services.searchSlots,
        searchWindow: TransactionSearchWindow(scanLimit: services.server.searchScanLimit))
        .addRoutes(to: api)
    TransactionReviewController(reviews: services.transactionReviews, transactions: services.transactions).addRoutes(to: api)
    ReviewQueueController(queue: services.reviewQueue, cursorKeys: cursorKeys).addRoutes(to: api)
    WebhookEventsController(events: services.webhookEvents, cursorKeys: cursorKeys).addRoutes(to: api)
    StatsController(store: services.store).addRoutes(to: api)
    ChargeRunsController(services: services, logger: Logger(label: "vault.runner"), cursorKeys: cursorKeys).addRoutes(to: api)
    ReceiptsController(store: services.store, cursorKeys: cursorKeys).addRoutes(to: api)
    CaptureSessionsController(sessions: services.captureSessions).addRoutes(to: api)
    // Called with a session's client secret from the cardholder's device, not with an API key.
    let capture = router.group("v1").add(middleware: UnknownQueryParameterMiddleware<VaultRequestContext>())
        .add(middleware: RequestTimeoutMiddleware<VaultRequestContext>(timeout: .seconds(server.requestTimeoutSeconds)))
    CaptureCardController(sessions: services.captureSessions, limits: limits, maxBodyBytes: server.maxBodyBytes).addRoutes(to: capture)
    authorization.recordClientSecret(method: .post, path: RouterPath("v1").appendingPath(RouterPath(CaptureCardController.path)))
    CaptureFrameController(sessions: services.captureSessions).addRoutes(to: operational)
    ConsoleRoutes(services: services.console).addRoutes(to: router)
    // After the last route, so it wraps only the router's not-found responder (see the type).
    router.add(middleware: MethodNotAllowedMiddleware(routes: RouteMethods(router.routes)))
    return (router, authorization)
}

/// The metrics listener: `/metrics` of `registry` (the process-wide one by default) and nothing
/// else, plain HTTP on ``MetricsSettings/host`` (loopback unless the operator says otherwise).
/// Any other path or method is a bare 404 or 405.
public func buildMetricsApplication(
    settings: MetricsSettings, registry: PrometheusCollectorRegistry? = nil, logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = Router()
    MetricsController(registry: registry ?? VaultMetrics.registry).addRoutes(to: router)
    return Application(
        router: router, configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "vault-metrics"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) }, logger: logger)
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
