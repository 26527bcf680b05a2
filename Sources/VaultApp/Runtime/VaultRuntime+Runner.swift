public import Foundation
public import Logging
public import Payments
public import Scheduler
public import Vault

extension VaultRuntime {
    /// The retry policy of the configuration.
    public var retryPolicy: RetryPolicy {
        RetryPolicy(
            delaysDays: configuration.retry.delaysDays, maxAttempts: configuration.retry.maxAttempts,
            pastDuePolicy: PastDuePolicy(rawValue: configuration.retry.pastDuePolicy.rawValue) ?? .continue)
    }

    /// A charge runner over this runtime (the CLI and `POST /v1/charge-runs` use the same one).
    public func chargeRunner(logger: Logger) -> ChargeRunner {
        ChargeRunner(
            store: store, cards: cards, gateways: MerchantGateways(registry: gateways, merchants: merchants), merchants: store,
            policy: retryPolicy, logger: logger, storedCredentials: StoredCredentials(store: store, keyring: keyring),
            contacts: ScheduleContactOpener(keyring: keyring))
    }

    /// Resolves steps in review under the configuration's retry policy.
    public var stepReviews: StepReviewService {
        StepReviewService(store: store, policy: retryPolicy, keyring: keyring, contacts: ScheduleContactOpener(keyring: keyring))
    }

    /// The rule for transactions whose answer was lost, from `runner.inDoubtGraceSeconds` and `reconcile.heldForReviewDays`.
    public var inDoubtPolicy: InDoubtPolicy {
        InDoubtPolicy(
            grace: TimeInterval(configuration.runner.inDoubtGraceSeconds),
            heldForReviewLimit: TimeInterval(configuration.reconcile.heldForReviewDays) * 86_400)
    }

    /// The reconciler of every one-off transaction in doubt, logging to `logger`.
    public func reconciler(logger: Logger) -> TransactionReconciler {
        TransactionReconciler(
            store: store, gateways: MerchantGateways(registry: gateways, merchants: merchants), merchants: store, policy: inDoubtPolicy,
            keyring: keyring, logger: logger, receipts: EmailReceipts(keyring: keyring, setup: emailReceiptSetup))
    }

    /// Resolves one-off transactions in review.
    public var transactionReviews: TransactionReviewService {
        TransactionReviewService(store: store, keyring: keyring, receipts: EmailReceipts(keyring: keyring, setup: emailReceiptSetup))
    }

    /// The review queue: steps and one-off transactions in review, resolved through ``stepReviews``
    /// and ``transactionReviews``, looked up through the merchants' gateways.
    public var reviewQueue: ReviewQueueService {
        ReviewQueueService(
            store: store, steps: stepReviews, transactions: transactionReviews, gateways: MerchantGateways(registry: gateways, merchants: merchants),
            keyring: keyring)
    }

    /// The merchants' webhook events for support, queued again for `webhooks.retryHours`.
    public var webhookEvents: WebhookEventService {
        WebhookEventService(store: store, retention: configuration.webhooks.retention)
    }

    /// Runner options from the configuration, as of `asOf`.
    public func chargeRunOptions(asOf: Date) -> ChargeRunner.Options {
        ChargeRunner.Options(configuration, asOf: asOf)
    }
}

extension ChargeRunner.Options {
    /// The options `configuration` gives (`runner` and `schedules.horizonDays`), as of `asOf`.
    public init(_ configuration: VaultConfiguration, asOf: Date) {
        self.init(asOf: asOf)
        concurrency = configuration.runner.concurrency
        batchSize = configuration.runner.batchSize
        lease = TimeInterval(configuration.runner.leaseSeconds)
        gatewayRetries = configuration.runner.gatewayRetries
        inDoubtGrace = TimeInterval(configuration.runner.inDoubtGraceSeconds)
        unreachableLimit = configuration.runner.unreachableLimit
        heldForReviewLimit = TimeInterval(configuration.reconcile.heldForReviewDays) * 86_400
        horizonDays = configuration.schedules.horizonDays
    }
}

