public import Foundation
public import Logging
public import Vault

/// Sends queued e-mail receipts: claims due ones in leased batches, opens each recipient, writes
/// the message (``ReceiptMail``) and pipes it to the configured mail program, then records what
/// became of it.
///
/// Exit status 0 sends a receipt. Anything else is a refused attempt, retried after
/// ``ReceiptDeliverySettings/backoff(afterAttempt:)`` until ``ReceiptDeliverySettings/maxAttempts``
/// refusals mark it `failed` with the last reason. Leases keep two deliverers (threads, processes,
/// servers) from piping one receipt at once; a deliverer that dies after its claim leaves the
/// receipt to be claimed again when the lease ends. A crash between the mail program taking a
/// receipt and the vault recording it sends it again; its `Message-ID` is the same, so the
/// receiving side reads one message.
///
/// Before a receipt is piped its row is checked against its binding (``ReceiptBinding``): a
/// receipt whose recipient, text, merchant, event or transaction was changed in the database is
/// never sent; it is marked `failed` with the reason ``integrityFailedReason`` and counted
/// (``ReceiptDeliveryReport/altered``).
///
/// Nothing of an address or a message is logged or stored as an error: ids, attempts and the mail
/// program's exit status only.
public struct ReceiptDeliverer: Sendable {
    /// The outbox.
    public let store: any ReceiptStore
    /// The mail program and sender.
    public let mailer: ReceiptMailer
    /// Retry settings.
    public let settings: ReceiptDeliverySettings
    private let seal: WebhookFieldSeal
    private let bindings: ReceiptBinding
    private let logger: Logger

    /// The `last_error` of a receipt not sent because its row fails its binding.
    public static let integrityFailedReason = "integrity check failed: the stored receipt was altered"

    /// Creates a deliverer.
    /// - Parameters:
    ///   - store: the outbox.
    ///   - keyring: opens the sealed recipients.
    ///   - mailer: the configured program and sender.
    ///   - settings: attempts, backoff, lease and batch size.
    ///   - logger: receives ids, attempts and reasons only.
    public init(
        store: any ReceiptStore, keyring: Keyring, mailer: ReceiptMailer, settings: ReceiptDeliverySettings = .init(),
        logger: Logger = Logger(label: "vault.receipts")
    ) {
        self.store = store
        self.mailer = mailer
        self.settings = settings
        seal = WebhookFieldSeal(keyring: keyring)
        bindings = ReceiptBinding(keyring: keyring)
        self.logger = logger
    }

    /// Sends every receipt due at `now`, batch by batch, until none is left (each at most once per
    /// call: a refusal moves its next attempt past `now`), then deletes the sent and failed receipts
    /// queued longer ago than ``ReceiptDeliverySettings/retention``.
    /// - Parameters:
    ///   - now: the instant that decides what is due and stamps what happens.
    ///   - shouldContinue: asked before each batch; false stops after the batch in flight.
    /// - Throws: storage errors; receipts already handled are recorded, the rest stay leased until
    ///   their lease ends and are then claimed again.
    public func deliverDue(now: Date = Date(), while shouldContinue: () -> Bool = { true }) async throws -> ReceiptDeliveryReport {
        var report = ReceiptDeliveryReport()
        while shouldContinue() {
            let batch = try await store.claimReceipts(now: now, leaseUntil: now.addingTimeInterval(settings.lease), limit: settings.batchSize)
            if batch.isEmpty { break }
            for receipt in batch {
                switch try await deliver(receipt, now: now) {
                case .sent: report.sent += 1
                case .retrying: report.retrying += 1
                case .failed: report.failed += 1
                case .altered:
                    report.failed += 1
                    report.altered += 1
                }
            }
        }
        report.purged = try await store.purgeSettledReceipts(queuedBefore: now.addingTimeInterval(-settings.retention))
        if !report.isEmpty {
            logger.info(
                "receipt delivery round",
                metadata: [
                    "sent": "\(report.sent)", "retrying": "\(report.retrying)", "failed": "\(report.failed)", "altered": "\(report.altered)",
                    "purged": "\(report.purged)",
                ])
        }
        return report
    }

    enum Outcome {
        case sent, retrying, failed, altered
    }

    /// Pipes one claimed receipt and records the outcome.
    func deliver(_ receipt: EmailReceipt, now: Date) async throws -> Outcome {
        let recipient: MailAddress
        do {
            recipient = try await self.recipient(of: receipt)
        } catch {
            // The address cannot be opened or written: no later attempt can do better.
            return try await refuse(receipt, reason: "recipient unavailable", now: now, final: true)
        }
        guard await bindings.isIntact(receipt, address: recipient.value) else {
            _ = try await refuse(receipt, reason: Self.integrityFailedReason, now: now, final: true)
            return .altered
        }
        let message = self.message(of: receipt, to: recipient)
        switch await mailer.command.send(message) {
        case .accepted:
            try await store.markReceiptSent(id: receipt.id, at: now)
            logger.debug("receipt sent", metadata: ["receipt": "\(receipt.id)", "transaction": "\(receipt.transactionID)"])
            return .sent
        case .refused(let reason):
            return try await refuse(receipt, reason: reason, now: now, final: receipt.attempts + 1 >= settings.maxAttempts)
        }
    }

    /// The recipient of `receipt`, opened.
    /// - Throws: `KeyringError` or a crypto error when it does not open, `CryptoError.malformedCiphertext`
    ///   when it opens to something that is no address.
    func recipient(of receipt: EmailReceipt) async throws -> MailAddress {
        let address = try await seal.openValue(receipt.recipient, merchantID: receipt.merchantID)
        guard let recipient = MailAddress(address) else { throw CryptoError.malformedCiphertext }
        return recipient
    }

    /// The message of `receipt` to `recipient`.
    func message(of receipt: EmailReceipt, to recipient: MailAddress) -> String {
        let mail = ReceiptMail(
            from: mailer.from, to: recipient, merchantName: receipt.merchantName,
            timeZone: TimeZone(identifier: receipt.timeZone) ?? TimeZone(identifier: "UTC")!)
        return mail.message(body: receipt.body, occurredAt: receipt.occurredAt, transactionID: receipt.transactionID)
    }

    private func refuse(_ receipt: EmailReceipt, reason: String, now: Date, final: Bool) async throws -> Outcome {
        let retryAt = final ? nil : now.addingTimeInterval(settings.backoff(afterAttempt: receipt.attempts + 1))
        try await store.markReceiptFailed(id: receipt.id, error: reason, retryAt: retryAt)
        var metadata: Logger.Metadata = [
            "receipt": "\(receipt.id)", "transaction": "\(receipt.transactionID)", "attempt": "\(receipt.attempts + 1)", "reason": "\(reason)",
        ]
        if let retryAt { metadata["nextAttemptAt"] = "\(Timestamp.string(retryAt))" }
        logger.warning(final ? "receipt failed for good" : "receipt refused, to be retried", metadata: metadata)
        return final ? .failed : .retrying
    }
}
