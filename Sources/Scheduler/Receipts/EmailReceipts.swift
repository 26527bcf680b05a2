public import Foundation
public import Payments
public import Vault

extension ReceiptEvent {
    /// What `transaction`'s receipt tells the payer: paid for an approved sale or capture,
    /// refunded or voided for an approved refund or void; nil for anything else (a decline, an
    /// authorization that moved no money yet, a verification, a credit).
    public init?(receiptOf transaction: Transaction) {
        guard transaction.status == .approved else { return nil }
        switch transaction.type {
        case .sale, .capture: self = .paid
        case .refund: self = .refunded
        case .void: self = .voided
        case .authorize, .verify, .credit: return nil
        }
    }
}

/// Decides and prepares e-mail receipts: which outcomes get one (``ReceiptEvent/init(receiptOf:)``)
/// and what the outbox row holds (the message's text written now, the address sealed under the
/// merchant's data key, the row bound by ``ReceiptBinding``), before the outcome's write, so every
/// storage engine only inserts it.
public struct EmailReceipts: TransactionReceipts {
    private let seal: WebhookFieldSeal
    private let bindings: ReceiptBinding
    private let setup: EmailReceiptSetup

    /// Receipts whose addresses are sealed and rows bound with the merchants' keys from `keyring`,
    /// taken while `setup` is usable.
    public init(keyring: Keyring, setup: EmailReceiptSetup = .notConfigured) {
        seal = WebhookFieldSeal(keyring: keyring)
        bindings = ReceiptBinding(keyring: keyring)
        self.setup = setup
    }

    /// Throws unless a receipt to `address` can be taken now (``EmailReceiptSetup/check(_:field:)``).
    public func check(_ address: String, field: String) throws {
        try setup.check(address, field: field)
    }

    /// The receipt of `transaction` to `address`, or nil when its outcome gets none.
    /// - Parameters:
    ///   - address: the payer's address as the request gave it (checked again as a ``MailAddress``:
    ///     nil for one that cannot be written into a header).
    ///   - merchantName: the merchant's name, the message's sender name and first words.
    ///   - timeZone: the merchant's zone, in which the receipt is dated.
    /// - Throws: `KeyringError` when the merchant's keys are unavailable.
    public func receipt(of transaction: Transaction, to address: String, merchantName: String, timeZone: TimeZone, now: Date = Date()) async throws
        -> PendingReceipt?
    {
        guard let event = ReceiptEvent(receiptOf: transaction), let recipient = MailAddress(address) else { return nil }
        let sealed = try await seal.seal(recipient.value, merchantID: transaction.merchantID, recordID: transaction.id)
        var receipt = PendingReceipt(
            merchantID: transaction.merchantID, transactionID: transaction.id, event: event, recipient: sealed, maskedRecipient: recipient.masked,
            merchantName: merchantName, timeZone: timeZone.identifier, occurredAt: transaction.updatedAt,
            body: ReceiptMail.body(of: transaction, merchantName: merchantName, timeZone: timeZone), now: now)
        receipt.binding = try await bindings.binding(of: receipt, address: recipient.value)
        return receipt
    }
}
