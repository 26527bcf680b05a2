public import Foundation
public import Vault

/// How a one-off transaction's e-mail receipt is checked and prepared, for ``TransactionService``:
/// the scheduler's e-mail receipts (which know the message and the configured mail program), so
/// one-off and scheduled payments get their receipts from one place.
public protocol TransactionReceipts: Sendable {
    /// Throws a refusal (422, naming `field`, nothing recorded) unless `address` can be taken now:
    /// a plain address a message header can carry, and a usable mail program and sender.
    func check(_ address: String, field: String) throws
    /// The receipt of `transaction` to `address` for the outbox (its address sealed), or nil when
    /// its outcome gets none (a decline, an authorization, a verification, a credit).
    func receipt(of transaction: Transaction, to address: String, merchantName: String, timeZone: TimeZone, now: Date) async throws
        -> PendingReceipt?
}
