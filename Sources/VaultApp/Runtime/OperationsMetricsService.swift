import Foundation
public import Logging
import Metrics
import Vault
public import Scheduler
public import ServiceLifecycle
import VaultAPI

/// Refreshes the on-call gauges of `/metrics` from the database every `interval` in the background
/// of `vault serve`, so they show what every process on the database did (the nightly `vault charge
/// run` included): the webhook backlog and its oldest event's age, steps in doubt and in review,
/// when the last charge run finished and whether it completed, the master key versions still
/// wrapping keys, and the e-mail receipts waiting to be sent. Sets `vault_build_info{version}` once.
public struct OperationsMetricsService: Service {
    /// Where the gauges' values are read.
    public let store: any VaultStorage
    /// Time between two refreshes.
    public let interval: Duration
    /// Where a failed refresh is reported.
    public let logger: Logger
    /// The clock the ages are measured on (tests pass a fixed one).
    let now: @Sendable () -> Date

    /// Creates the service.
    public init(store: any VaultStorage, interval: Duration = .seconds(15), logger: Logger) {
        self.init(store: store, interval: interval, logger: logger, now: { Date() })
    }

    init(store: any VaultStorage, interval: Duration, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.interval = interval
        self.logger = logger
        self.now = now
    }

    /// Refreshes until graceful shutdown or cancellation.
    public func run() async throws {
        Self.recordBuildInfo()
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await refresh()
            } catch {
                logger.warning("metrics refresh failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// `vault_build_info{version="..."} 1`.
    static func recordBuildInfo() {
        Gauge(label: VaultMetricNames.buildInfo, dimensions: [("version", VaultVersion.current)]).record(1)
    }

    /// Reads every gauge's value once.
    func refresh() async throws {
        let backlog = try await store.webhookBacklog()
        Gauge(label: VaultMetricNames.webhookBacklog).record(backlog.pending)
        Gauge(label: VaultMetricNames.webhookOldestPendingAge).record(backlog.oldestQueuedAt.map { max(0, now().timeIntervalSince($0)) } ?? 0)
        Gauge(label: VaultMetricNames.stepsInDoubt).record(try await store.stepsInDoubt())
        Gauge(label: VaultMetricNames.stepsNeedsReview).record(try await store.stepsInReview(merchantID: nil))
        Gauge(label: VaultMetricNames.receiptsQueued).record(try await store.pendingReceiptCount())
        // The receipt counters exist from the first refresh, at 0, so an alert on their increase has
        // a series to compare with before the first receipt is sent or fails.
        Counter(label: VaultMetricNames.receiptsSent).increment(by: 0)
        for reason in ["refused", "altered"] {
            Counter(label: VaultMetricNames.receiptsFailed, dimensions: [("reason", reason)]).increment(by: 0)
        }
        if let run = try await store.lastFinishedChargeRun(), let finished = run.finishedAt {
            Gauge(label: VaultMetricNames.chargeRunLastFinished).record(finished.timeIntervalSince1970)
            Gauge(label: VaultMetricNames.chargeRunLastSucceeded).record(run.status == .completed ? 1 : 0)
        }
        let wrapped = try await store.wrappedKeyCounts()
        for (version, keys) in wrapped {
            Gauge(label: VaultMetricNames.masterKeyWrappedKeys, dimensions: [("kek_version", String(version))]).record(keys)
        }
        Gauge(label: VaultMetricNames.masterKeyVersionsInUse).record(wrapped.values.filter { $0 > 0 }.count)
    }
}
