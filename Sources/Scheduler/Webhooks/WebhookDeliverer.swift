public import Foundation
public import Logging
public import Vault

/// Delivers queued webhook events: claims due ones in leased batches, POSTs each signed to its
/// merchant's `callbackUrl` with bounded concurrency, and records the outcome.
///
/// A 2xx answer delivers an event. Anything else (another status, a timeout, a refused
/// connection) is a failed attempt, retried after `min(initial * 2^(attempts-1), max)` less
/// jitter, until the event's retry period ends and it expires. Leases keep two deliverers
/// (threads or processes) from sending one event at the same time; a crash between sending and
/// recording can still send an event twice, so receivers deduplicate by event id.
///
/// Nothing of a body, a URL or a key is logged or stored as an error: only ids, types,
/// statuses and short reason codes.
public struct WebhookDeliverer: Sendable {
    /// The outbox.
    public let store: any WebhookStore
    /// Delivery and retry settings.
    public let settings: WebhookDeliverySettings
    private let merchants: any MerchantStore
    private let keyring: Keyring
    private let transport: any WebhookTransport
    private let logger: Logger
    private let random: @Sendable () -> Double

    /// The `User-Agent` of deliveries.
    public static let userAgent = "vault-webhooks/1"

    /// Creates a deliverer.
    /// - Parameters:
    ///   - store: the outbox.
    ///   - merchants: where `callbackUrl`s are looked up.
    ///   - keyring: the merchants' webhook signing keys.
    ///   - transport: how events are POSTed (AsyncHTTPClient by default).
    ///   - settings: timeouts, backoff, batch size and concurrency.
    ///   - logger: receives ids, types, statuses and reasons only.
    ///   - random: jitter source in `0..<1` (tests pass a constant).
    public init(
        store: any WebhookStore, merchants: any MerchantStore, keyring: Keyring, transport: any WebhookTransport = HTTPWebhookTransport(),
        settings: WebhookDeliverySettings = .init(), logger: Logger = Logger(label: "vault.webhooks"),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.store = store
        self.merchants = merchants
        self.keyring = keyring
        self.transport = transport
        self.settings = settings
        self.logger = logger
        self.random = random
    }

    /// Expires events past their retry period, then delivers every event due at `now`, batch by
    /// batch, until none is left (each event is attempted at most once per call: a failure
    /// moves its next attempt past `now`).
    /// - Parameters:
    ///   - now: the instant that decides what is due; deliveries are stamped `now` plus the time
    ///     the call has taken, so tests drive time explicitly.
    ///   - shouldContinue: asked before each batch; false stops after the batch in flight
    ///     (graceful shutdown).
    /// - Throws: storage errors; events already sent are recorded, the rest stay leased until
    ///   their lease runs out and are then retried.
    public func deliverDue(now: Date = Date(), while shouldContinue: () -> Bool = { true }) async throws -> WebhookDeliveryReport {
        let clock = DeliveryClock(start: now)
        var report = WebhookDeliveryReport()
        var failures = OperatorWarningTally()
        report.expired = try await store.expireWebhookEvents(now: now)
        report.purged = try await store.purgeWebhookEvents(settledBefore: now.addingTimeInterval(-settings.keepSettled), limit: 10_000)
        while shouldContinue() {
            let batch = try await store.claimWebhookEvents(
                now: now, leaseUntil: clock.now.addingTimeInterval(settings.lease), limit: settings.batchSize)
            if batch.isEmpty { break }
            for (event, outcome) in zip(batch, try await deliver(batch, clock: clock)) {
                switch outcome {
                case .delivered: report.delivered += 1
                case .failed(let reason):
                    report.failed += 1
                    failures.add(Self.failureCause(merchantID: event.merchantID, reason: reason))
                case .skipped: break
                }
            }
        }
        failures.log(to: logger, countLabel: "events")
        if !report.isEmpty {
            logger.info(
                "webhook delivery round",
                metadata: ["delivered": "\(report.delivered)", "failed": "\(report.failed)", "expired": "\(report.expired)",
                           "purged": "\(report.purged)"])
        }
        return report
    }

    /// How one claimed event left a batch.
    enum AttemptOutcome: Sendable, Equatable {
        case delivered
        case failed(reason: String)
        case skipped
    }

    /// A failed delivery as the round's warning counts it: by merchant and reason (`http 503`,
    /// `connection refused`, ...), never by event.
    static func failureCause(merchantID: String, reason: String) -> OperatorWarningTally.Cause {
        OperatorWarningTally.Cause(
            merchantID: merchantID, gateway: "webhook", code: reason,
            message: "webhook deliveries failed: the merchant's receiver did not accept them; they are retried with backoff")
    }

    /// Where a merchant's events go, or why they cannot go now.
    enum Recipient: Sendable {
        /// `keys`: every key that signs now, newest first (two during a rotation's overlap).
        case ready(url: String, keys: [SecureBytes])
        case skip(reason: String)
        case unavailable(reason: String)
    }

    /// The outcomes of `batch`, in its order.
    private func deliver(_ batch: [WebhookEvent], clock: DeliveryClock) async throws -> [AttemptOutcome] {
        var recipients: [String: Recipient] = [:]
        for merchantID in Set(batch.map(\.merchantID)) {
            recipients[merchantID] = try await recipient(merchantID, now: clock.now)
        }
        let limit = settings.concurrency
        return try await withThrowingTaskGroup(of: (Int, AttemptOutcome).self) { group in
            var outcomes = [AttemptOutcome](repeating: .skipped, count: batch.count)
            for (index, event) in batch.enumerated() {
                if index >= limit, let finished = try await group.next() { outcomes[finished.0] = finished.1 }
                let recipient = recipients[event.merchantID] ?? .skip(reason: WebhookEvent.noCallbackError)
                group.addTask { (index, try await self.attempt(event, recipient: recipient, clock: clock)) }
            }
            for try await (done, outcome) in group { outcomes[done] = outcome }
            return outcomes
        }
    }

    private func recipient(_ merchantID: String, now: Date) async throws -> Recipient {
        guard let merchant = try await merchants.merchant(id: merchantID), merchant.status == .active else {
            return .skip(reason: "merchant not active")
        }
        guard let url = merchant.callbackURL else { return .skip(reason: WebhookEvent.noCallbackError) }
        do {
            return .ready(url: url, keys: try await keyring.webhookSigningKeys(merchantID: merchantID, now: now))
        } catch {
            return .unavailable(reason: "signing key unavailable")
        }
    }

    private func attempt(_ event: WebhookEvent, recipient: Recipient, clock: DeliveryClock) async throws -> AttemptOutcome {
        var metadata: Logger.Metadata = [
            "event": "\(event.id)", "type": "\(event.type)", "merchant": "\(event.merchantID)", "attempt": "\(event.attempts + 1)",
        ]
        switch recipient {
        case .skip(let reason):
            try await store.markWebhookFailed(
                id: event.id, error: reason, nextAttemptAt: clock.now.addingTimeInterval(settings.initialBackoff), countsAsAttempt: false)
            return .skipped
        case .unavailable(let reason):
            try await recordFailure(event, reason: reason, clock: clock, metadata: metadata)
            return .failed(reason: reason)
        case .ready(let url, let keys):
            // Holder data travels sealed in the stored body and is opened only here, to be sent.
            let opened: String
            do {
                opened = try await WebhookFieldSeal(keyring: keyring).open(event.body, merchantID: event.merchantID)
            } catch {
                try await recordFailure(event, reason: "sealed field unavailable", clock: clock, metadata: metadata)
                return .failed(reason: "sealed field unavailable")
            }
            let body = Array(opened.utf8)
            let timestamp = Int64(clock.now.timeIntervalSince1970.rounded(.down))
            let headers: [(name: String, value: String)] = [
                ("Content-Type", "application/json"),
                ("User-Agent", Self.userAgent),
                ("Vault-Event-Id", event.id),
                ("Vault-Event-Type", event.type),
                ("Vault-Delivery-Attempt", String(event.attempts + 1)),
                (WebhookSignature.headerName, WebhookSignature.header(body: body, timestamp: timestamp, keys: keys)),
            ]
            switch await transport.post(url: url, headers: headers, body: body, timeout: settings.timeout) {
            case .answered(let status) where (200..<300).contains(status):
                try await store.markWebhookDelivered(id: event.id, at: clock.now)
                metadata["status"] = "\(status)"
                logger.debug("webhook delivered", metadata: metadata)
                return .delivered
            case .answered(let status):
                try await recordFailure(event, reason: "http \(status)", clock: clock, metadata: metadata)
                return .failed(reason: "http \(status)")
            case .failed(let reason):
                try await recordFailure(event, reason: reason, clock: clock, metadata: metadata)
                return .failed(reason: reason)
            }
        }
    }

    private func recordFailure(_ event: WebhookEvent, reason: String, clock: DeliveryClock, metadata: Logger.Metadata) async throws {
        let delay = settings.backoff(afterAttempt: event.attempts + 1, random: random())
        let next = clock.now.addingTimeInterval(delay)
        try await store.markWebhookFailed(id: event.id, error: reason, nextAttemptAt: next, countsAsAttempt: true)
        var metadata = metadata
        metadata["reason"] = "\(reason)"
        metadata["nextAttemptAt"] = "\(Timestamp.string(next))"
        // Per event at debug only: the round logs one warning per merchant and reason, with the count.
        logger.debug("webhook delivery failed", metadata: metadata)
    }
}

/// The deliverer's notion of now: the instant a round started, advanced by the time it has taken.
struct DeliveryClock: Sendable {
    let start: Date
    let started = ContinuousClock.now

    /// `start` plus the time elapsed since the clock was made.
    var now: Date {
        start.addingTimeInterval(WebhookDeliverySettings.seconds(ContinuousClock.now - started))
    }
}
