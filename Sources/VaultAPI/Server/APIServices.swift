public import Foundation
public import Payments
public import Scheduler
public import Vault

/// What the HTTP server serves over: the store, the domain services and the HTTP layer's own
/// settings. The composition root builds it from the configuration and the opened database; the
/// server knows neither.
public struct APIServices: Sendable {
    /// Every store protocol of the engine in use.
    public var store: any VaultStorage
    /// The key hierarchy (readiness checks it).
    public var keyring: Keyring
    /// Merchants and API keys (authentication).
    public var merchants: MerchantService
    /// Secure cards.
    public var cards: SecureCardService
    /// Schedules.
    public var schedules: ScheduleService
    /// Sales, authorizations, verifications and follow-ups.
    public var transactions: TransactionService
    /// Idempotency-Keys: keyed request MACs and sealed responses.
    public var idempotency: IdempotencyService
    /// Resolves steps in review.
    public var stepReviews: StepReviewService
    /// Resolves one-off transactions in review.
    public var transactionReviews: TransactionReviewService
    /// Steps and one-off transactions in review, listed, resolved and looked up many at a time.
    public var reviewQueue: ReviewQueueService
    /// The merchants' webhook events: listed and sent again for support.
    public var webhookEvents: WebhookEventService
    /// Where `POST /v1/charge-runs` hands runs to the service that runs them.
    public var chargeRuns: ChargeRunQueue
    /// The runner's options as of an instant.
    public var chargeRunOptions: @Sendable (Date) -> ChargeRunner.Options
    /// Where rate limits and failed authentications are counted when shared by several servers;
    /// nil: in this process's memory.
    public var requestLimits: (any RequestLimitStore)?
    /// The listener.
    public var server: HTTPServerSettings
    /// The metrics listener, separate from the API's.
    public var metrics: MetricsSettings
    /// The per-key rate limit.
    public var rateLimit: RateLimitSettings
    /// Hours an idempotency key is remembered.
    public var idempotencyRetentionHours: Int
    /// The text searches each merchant is running (`server.maxSearchesPerMerchant`).
    public let searchSlots: MerchantSearchSlots
    /// Capture sessions (cards sent from the cardholder's device), registering through `cards`.
    public var captureSessions: CaptureSessionService
    /// The operator console's sign-in lockout and session limits (`console.*`).
    public var consolePolicy = ConsolePolicy()

    /// Creates the services.
    public init(
        store: any VaultStorage, keyring: Keyring, merchants: MerchantService, cards: SecureCardService, schedules: ScheduleService,
        transactions: TransactionService, idempotency: IdempotencyService, stepReviews: StepReviewService,
        transactionReviews: TransactionReviewService, reviewQueue: ReviewQueueService, webhookEvents: WebhookEventService, chargeRuns: ChargeRunQueue,
        chargeRunOptions: @escaping @Sendable (Date) -> ChargeRunner.Options, requestLimits: (any RequestLimitStore)?,
        server: HTTPServerSettings, metrics: MetricsSettings = MetricsSettings(), rateLimit: RateLimitSettings, idempotencyRetentionHours: Int
    ) {
        self.store = store
        self.keyring = keyring
        self.merchants = merchants
        self.cards = cards
        self.schedules = schedules
        self.transactions = transactions
        self.idempotency = idempotency
        self.stepReviews = stepReviews
        self.transactionReviews = transactionReviews
        self.reviewQueue = reviewQueue
        self.webhookEvents = webhookEvents
        self.chargeRuns = chargeRuns
        self.chargeRunOptions = chargeRunOptions
        self.requestLimits = requestLimits
        self.server = server
        self.metrics = metrics
        self.rateLimit = rateLimit
        self.idempotencyRetentionHours = idempotencyRetentionHours
        searchSlots = MerchantSearchSlots(limit: server.maxSearchesPerMerchant)
        captureSessions = CaptureSessionService(store: store, cards: cards, keyring: keyring, lifetime: TimeInterval(server.captureSessionMinutes * 60))
    }
}
