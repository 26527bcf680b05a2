public import Foundation

/// The e-mail receipt outbox: receipts queued in the commit of the outcomes they report (by the
/// stores' own writes, from what the domain prepared), then claimed, piped to the mail program
/// and settled by deliverers.
///
/// Claiming leases receipts, so any number of deliverers (threads, processes, servers sharing
/// PostgreSQL with `FOR UPDATE SKIP LOCKED`) never pipe one receipt at once; a deliverer that
/// dies holding a lease leaves the receipt to be claimed again once the lease ends.
public protocol ReceiptStore: Sendable {
    /// Leases up to `limit` pending receipts due by `now` that no other deliverer holds, until
    /// `leaseUntil`; oldest due first.
    func claimReceipts(now: Date, leaseUntil: Date, limit: Int) async throws -> [EmailReceipt]
    /// Records that the mail program took the receipt: `sent`, never piped again.
    func markReceiptSent(id: String, at: Date) async throws
    /// Records a refused attempt (counted) and releases the lease: pending again from
    /// `retryAt`, or `failed` for good when `retryAt` is nil.
    /// - Parameter error: a short reason, never an address or the message; stored as `last_error`.
    func markReceiptFailed(id: String, error: String, retryAt: Date?) async throws
    /// A page of receipts, newest first, optionally of one merchant and status, before `beforeSequence`.
    func receipts(merchantID: String?, status: ReceiptStatus?, beforeSequence: Int64?, limit: Int) async throws -> [EmailReceipt]
    /// Replaces the receipt's sealed recipient by `new` if it is still `old` (re-sealing under a
    /// newer data key); whether it was replaced.
    func resealReceiptRecipient(id: String, old: String, new: String) async throws -> Bool
    /// Deletes `sent` and `failed` receipts queued before `cutoff` (pending ones are kept whatever
    /// their age); how many were deleted.
    func purgeSettledReceipts(queuedBefore cutoff: Date) async throws -> Int
    /// Receipts waiting to be sent (`pending`).
    func pendingReceiptCount() async throws -> Int
    /// Up to `limit` receipts of any status stored without a binding (by a build before receipts
    /// were bound, or stripped of it since), oldest first.
    func receiptsWithoutBinding(limit: Int) async throws -> [EmailReceipt]
    /// Writes each receipt's binding, where it still has none, in one write.
    func bindReceipts(_ bindings: [(id: String, binding: [UInt8])]) async throws
}
