import Foundation
public import Vault

/// How an original transaction changes when a follow-up is approved.
public struct ParentUpdate: Sendable, Equatable {
    /// The original.
    public var parentID: String
    /// Its new status.
    public var status: TransactionStatus
    /// Added to its captured amount.
    public var capturedDelta: Int64
    /// Added to its refunded amount.
    public var refundedDelta: Int64

    /// Creates an update.
    public init(parentID: String, status: TransactionStatus, capturedDelta: Int64 = 0, refundedDelta: Int64 = 0) {
        self.parentID = parentID
        self.status = status
        self.capturedDelta = capturedDelta
        self.refundedDelta = refundedDelta
    }
}

/// How to find transactions.
public struct TransactionFilter: Sendable {
    /// Only this status.
    public var status: TransactionStatus?
    /// Only this type.
    public var type: TransactionType?
    /// Only this schedule.
    public var scheduleID: String?
    /// Only this card.
    public var secureCardReference: String?

    /// Creates a filter.
    public init(status: TransactionStatus? = nil, type: TransactionType? = nil, scheduleID: String? = nil, secureCardReference: String? = nil) {
        self.status = status
        self.type = type
        self.scheduleID = scheduleID
        self.secureCardReference = secureCardReference
    }
}

/// Persistence of transactions. Every change records its audit event atomically.
public protocol TransactionStore: Sendable {
    /// Records a transaction before its gateway call.
    func insertTransaction(_ transaction: Transaction, audit: AuditEntry) async throws
    /// Records a follow-up (capture, void, refund) before its gateway call. `check` runs inside
    /// the same write transaction with the freshly read original and its existing follow-ups, so
    /// two concurrent refunds cannot exceed what remains; it throws to refuse.
    func insertFollowUp(
        _ transaction: Transaction, check: @escaping @Sendable (_ parent: Transaction, _ followUps: [Transaction]) throws -> Void, audit: AuditEntry
    ) async throws
    /// Records a gateway outcome (and the original's change, for an approved follow-up).
    func completeTransaction(_ transaction: Transaction, parentUpdate: ParentUpdate?, audit: AuditEntry) async throws
    /// Links a transaction to the card registered by its sale.
    func attachSecureCard(transactionID: String, merchantID: String, secureCardReference: String, merchantReference: String) async throws
    /// One transaction of a merchant.
    func transaction(merchantID: String, id: String) async throws -> Transaction?
    /// A page of a merchant's transactions, newest first.
    func transactions(merchantID: String, filter: TransactionFilter, beforeSequence: Int64?, limit: Int) async throws -> [Transaction]
}
