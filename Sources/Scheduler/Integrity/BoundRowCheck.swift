public import Vault
import Payments

/// Which bound rows are not as the vault wrote them (`vault audit verify`): ids only, never card data.
public struct BoundRowReport: Sendable, Codable, Equatable {
    /// Rows checked, by kind (`secure_cards`, `api_keys`, `schedules`, `schedule_steps`, `transactions`, `email_receipts`,
    /// `webhook_signing_windows`: webhook keys replaced by a rotation, named `<merchant>/webhook/<version>`).
    public var checked: [String: Int] = [:]
    /// The ids of rows that fail their check, by kind (card tokens, key ids, schedule, step, transaction and receipt ids).
    public var tampered: [String: [String]] = [:]

    /// Whether every row checked is intact.
    public var isIntact: Bool { tampered.values.allSatisfy(\.isEmpty) }

    /// An empty report.
    public init() {}

    mutating func count(_ kind: String, id: String, intact: Bool) {
        checked[kind, default: 0] += 1
        if !intact { tampered[kind, default: []].append(id) }
    }
}

/// Checks every bound row of every merchant in service: cards (their sealed record with its bound
/// metadata), API keys, schedules and steps (``ScheduleBinding``), transactions (``TransactionBinding``), queued e-mail
/// receipts (``ReceiptBinding``, their recipient opened to be checked), the windows of replaced webhook keys
/// (``WebhookSigningWindowBinding``). Off-boarded merchants' rows are
/// not checked: their keys are destroyed, so nothing of theirs can be charged or authenticate.
///
/// A row bound by no key (inserted, moved, re-priced or stripped of its binding in the database) is
/// reported with its id; the check reads every row once and changes nothing.
public struct BoundRowCheck: Sendable {
    private let store: any VaultStorage
    private let cards: SecureCardService
    private let apiKeys: APIKeyBinding
    private let schedules: ScheduleBinding
    private let transactions: TransactionBinding
    private let receipts: ReceiptBinding
    private let receiptRecipients: WebhookFieldSeal
    private let webhookWindows: WebhookSigningWindowBinding

    /// A check of `store`'s rows with the merchants' keys from `keyring`.
    public init(store: any VaultStorage, keyring: Keyring) {
        self.store = store
        cards = SecureCardService(store: store, keyring: keyring, verifier: NoCardVerifier())
        apiKeys = APIKeyBinding(keyring: keyring)
        schedules = ScheduleBinding(keyring: keyring)
        transactions = TransactionBinding(keyring: keyring)
        receipts = ReceiptBinding(keyring: keyring)
        receiptRecipients = WebhookFieldSeal(keyring: keyring)
        webhookWindows = WebhookSigningWindowBinding(keyring: keyring)
    }

    /// Reads and checks every bound row.
    public func run(batchSize: Int = 500) async throws -> BoundRowReport {
        var report = BoundRowReport()
        for merchant in try await store.merchants() where merchant.status == .active {
            for (reference, intact) in try await cards.integrity(merchantID: merchant.id, batchSize: batchSize) {
                report.count("secure_cards", id: reference, intact: intact)
            }
            for key in try await store.apiKeys(merchantID: merchant.id) {
                report.count("api_keys", id: key.record.id, intact: await apiKeys.isIntact(key))
            }
            for window in try await store.webhookSigningWindows(merchantID: merchant.id)
            where window.signsUntil != nil || window.binding != nil {
                report.count(
                    "webhook_signing_windows", id: "\(merchant.id)/webhook/\(window.version)", intact: await webhookWindows.isIntact(window))
            }
            var after: Int64?
            while true {
                let page = try await store.schedules(merchantID: merchant.id, status: nil, afterSequence: after, limit: batchSize)
                guard let last = page.last else { break }
                for schedule in page {
                    report.count("schedules", id: schedule.id, intact: await schedules.isIntact(schedule))
                    for step in try await store.steps(scheduleID: schedule.id) {
                        report.count("schedule_steps", id: step.id, intact: await schedules.isIntact(step, merchantID: merchant.id))
                    }
                }
                after = last.sequence
            }
            var afterTransaction: Int64?
            while true {
                let page = try await store.transactions(
                    merchantID: merchant.id, filter: TransactionFilter(), order: .oldestFirst, afterSequence: afterTransaction, limit: batchSize)
                guard let last = page.last else { break }
                for transaction in page {
                    report.count("transactions", id: transaction.id, intact: await transactions.isIntact(transaction))
                }
                afterTransaction = last.sequence
            }
            var beforeReceipt: Int64?
            while true {
                let page = try await store.receipts(merchantID: merchant.id, status: nil, beforeSequence: beforeReceipt, limit: batchSize)
                guard let last = page.last else { break }
                for receipt in page {
                    let address = try? await receiptRecipients.openValue(receipt.recipient, merchantID: merchant.id)
                    let intact = if let address { await receipts.isIntact(receipt, address: address) } else { false }
                    report.count("email_receipts", id: receipt.id, intact: intact)
                }
                beforeReceipt = last.sequence
            }
        }
        return report
    }
}

/// A verifier that is never asked: the check only opens stored cards.
private struct NoCardVerifier: CardVerifier {
    func verify(_ card: CapturedCard, merchant: Merchant, secureCardReference: String) async -> CardVerificationResult {
        .unavailable(reason: "not used")
    }
}
