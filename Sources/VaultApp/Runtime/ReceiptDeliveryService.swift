import Foundation
import Metrics
public import Logging
public import Scheduler
public import ServiceLifecycle
public import Vault

/// Sends e-mail receipts in the background of `vault serve`: a round every `pollSeconds` until
/// graceful shutdown, which lets the batch in flight finish. Without a usable mail program and
/// sender the rounds send nothing and say so once when receipts wait (they stay queued until one is configured).
public struct ReceiptDeliveryService: Service {
    /// Builds the deliverer each round uses, or says why there is none.
    public let deliverer: @Sendable () throws(ReceiptsNotConfigured) -> ReceiptDeliverer
    /// Time between the end of one round and the start of the next.
    public let pollInterval: Duration
    /// Where failed rounds are reported.
    public let logger: Logger
    /// The outbox, asked whether receipts wait while none can be sent.
    public let store: any ReceiptStore

    /// Creates the service.
    public init(
        store: any ReceiptStore, pollInterval: Duration, logger: Logger,
        deliverer: @escaping @Sendable () throws(ReceiptsNotConfigured) -> ReceiptDeliverer
    ) {
        self.store = store
        self.deliverer = deliverer
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// Runs rounds until graceful shutdown or cancellation.
    public func run() async throws {
        var warned = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let report = try await deliverer().deliverDue(now: Date()) { !Task.isShuttingDownGracefully && !Task.isCancelled }
                Self.count(report)
                warned = false
            } catch let error as ReceiptsNotConfigured {
                if !warned, let waiting = try? await store.receipts(merchantID: nil, status: .pending, beforeSequence: nil, limit: 1), !waiting.isEmpty {
                    logger.warning("e-mail receipts are queued but not sent", metadata: ["reason": "\(error.reason)"])
                    warned = true
                }
            } catch {
                logger.warning("receipt delivery round failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: pollInterval) }
        }
    }
}

extension ReceiptDeliveryService {
    /// Adds a round's receipts to `vault_receipts_sent_total` and `vault_receipts_failed_total`
    /// (`reason`: `refused` by the mail program or unreadable, `altered` in the database).
    static func count(_ report: ReceiptDeliveryReport) {
        if report.sent > 0 { Counter(label: VaultMetricNames.receiptsSent).increment(by: report.sent) }
        let refused = report.failed - report.altered
        if refused > 0 { Counter(label: VaultMetricNames.receiptsFailed, dimensions: [("reason", "refused")]).increment(by: refused) }
        if report.altered > 0 { Counter(label: VaultMetricNames.receiptsFailed, dimensions: [("reason", "altered")]).increment(by: report.altered) }
    }
}

extension VaultRuntime {
    /// How e-mail receipts leave this vault, as configured (checked on each request asking for one).
    public var emailReceiptSetup: EmailReceiptSetup {
        EmailReceiptSetup(sendmailCommand: configuration.receipts.sendmailCommand, from: configuration.receipts.from)
    }

    /// The receipt deliverer over this runtime's outbox and keys with the configured mail program.
    /// - Throws: ``ReceiptsNotConfigured`` when no usable program or sender is configured.
    public func receiptDeliverer(logger: Logger = Logger(label: "vault.receipts")) throws(ReceiptsNotConfigured) -> ReceiptDeliverer {
        let receipts = configuration.receipts
        return ReceiptDeliverer(
            store: store, keyring: keyring, mailer: try emailReceiptSetup.mailer(field: "receipts.sendmailCommand"),
            settings: ReceiptDeliverySettings(
                maxAttempts: receipts.maxAttempts, initialBackoff: TimeInterval(receipts.initialBackoffSeconds),
                maxBackoff: TimeInterval(receipts.maxBackoffSeconds), lease: TimeInterval(receipts.leaseSeconds),
                retention: TimeInterval(receipts.retentionDays) * 86_400),
            logger: logger)
    }
}
