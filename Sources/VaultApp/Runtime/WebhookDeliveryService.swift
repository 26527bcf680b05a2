public import Foundation
public import Logging
public import Scheduler
public import ServiceLifecycle
import Vault

/// Delivers webhook events in the background of `vault serve`: a round every `pollSeconds`
/// until graceful shutdown, which lets the batch in flight finish.
public struct WebhookDeliveryService: Service {
    /// The deliverer each round uses.
    public let deliverer: WebhookDeliverer
    /// Time between the end of one round and the start of the next.
    public let pollInterval: Duration
    /// Where failed rounds are reported.
    public let logger: Logger

    /// Creates the service.
    public init(deliverer: WebhookDeliverer, pollInterval: Duration, logger: Logger) {
        self.deliverer = deliverer
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Runs rounds until graceful shutdown or cancellation.
    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                _ = try await deliverer.deliverDue(now: Date()) { !Task.isShuttingDownGracefully && !Task.isCancelled }
            } catch {
                logger.warning("webhook delivery round failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: pollInterval) }
        }
    }
}

extension VaultRuntime {
    /// The webhook deliverer over this runtime's outbox, merchants and keys, with the configured settings.
    public var webhooks: WebhookDeliverer { webhookDeliverer(logger: Logger(label: "vault.webhooks")) }

    /// ``webhooks`` logging to `logger`.
    public func webhookDeliverer(logger: Logger) -> WebhookDeliverer {
        WebhookDeliverer(
            store: store, merchants: store, keyring: keyring,
            transport: HTTPWebhookTransport(allowPrivateTargets: configuration.webhooks.allowPrivateTargets),
            settings: WebhookDeliverySettings(configuration.webhooks), logger: logger)
    }
}

extension WebhookDeliverySettings {
    /// The settings `config/vault.yaml` gives under `webhooks`.
    public init(_ configuration: VaultConfiguration.Webhooks) {
        self.init(
            timeout: .seconds(configuration.timeoutSeconds), initialBackoff: TimeInterval(configuration.initialBackoffSeconds),
            maxBackoff: TimeInterval(configuration.maxBackoffSeconds), batchSize: configuration.batchSize,
            keepSettled: TimeInterval(configuration.keepDays) * 86_400)
    }
}

extension VaultConfiguration.Webhooks {
    /// How long an event is retried, for the events the stores queue in their outbox.
    public var retention: TimeInterval { TimeInterval(retryHours) * 3600 }
}
