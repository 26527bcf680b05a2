public import Foundation
public import Vault

/// How an original transaction changes when a follow-up is approved: the amounts that move.
///
/// The original's new status is never computed from a copy read earlier (two refunds approved at
/// once would each see the other missing): the stores apply ``assignmentsSQL``, which derives it
/// from the amounts in the same statement that changes them.
public struct ParentUpdate: Sendable, Equatable {
    /// What the approved follow-up did.
    public enum Change: String, Sendable, Equatable {
        /// A capture of an authorization: `captured`.
        case capture
        /// A void of everything that remains: `voided`.
        case void
        /// A void of part of what remains (a partial reversal): the status stays, unless the voids
        /// now reach the whole amount (`voided`).
        case partialVoid
        /// A refund: `refunded` once the refunds reach what was paid (a sale's amount less partial
        /// reversals, an authorization's captured amount), `partially_refunded` before.
        case refund
    }

    /// The original.
    public var parentID: String
    /// What happened to it.
    public var change: Change
    /// Added to its captured amount.
    public var capturedDelta: Int64
    /// Added to its refunded amount.
    public var refundedDelta: Int64
    /// Added to its voided amount (a partial reversal; a whole void sets it to the amount).
    public var voidedDelta: Int64

    /// Creates an update of `change` moving `amount` minor units.
    public init(parentID: String, change: Change, amount: Int64) {
        self.parentID = parentID
        self.change = change
        capturedDelta = change == .capture ? amount : 0
        refundedDelta = change == .refund ? amount : 0
        voidedDelta = change == .void || change == .partialVoid ? amount : 0
    }

    /// The change an approved follow-up `child` makes to its original `parent` (nil for anything
    /// else): the one place that maps a follow-up to its original's change.
    public static func approved(_ child: Transaction, of parent: Transaction) -> ParentUpdate? {
        guard child.status == .approved, child.parentID == parent.id else { return nil }
        switch child.type {
        case .capture: return ParentUpdate(parentID: parent.id, change: .capture, amount: child.amount)
        case .void:
            let whole = child.amount >= parent.voidableAmount
            return ParentUpdate(parentID: parent.id, change: whole ? .void : .partialVoid, amount: child.amount)
        case .refund: return ParentUpdate(parentID: parent.id, change: .refund, amount: child.amount)
        default: return nil
        }
    }

    /// The `SET` list of the `UPDATE transactions` that applies this change to the original's row,
    /// the same on SQLite and PostgreSQL. Column references on the right are the row as it is when
    /// the statement runs (both engines read the old values in a `SET`), so the status follows
    /// from the amounts as they end up however many follow-ups are approved at once. The deltas
    /// are integers, written as literals.
    public var assignmentsSQL: String {
        switch change {
        case .capture:
            return "captured_amount = captured_amount + \(capturedDelta), status = 'captured'"
        case .void:
            return "voided_amount = amount, status = 'voided'"
        case .partialVoid:
            return "voided_amount = voided_amount + \(voidedDelta), "
                + "status = CASE WHEN voided_amount + \(voidedDelta) >= amount THEN 'voided' ELSE status END"
        case .refund:
            return "refunded_amount = refunded_amount + \(refundedDelta), "
                + "status = CASE WHEN refunded_amount + \(refundedDelta) >= "
                + "(CASE WHEN type = 'authorize' THEN captured_amount ELSE amount - voided_amount END) "
                + "THEN 'refunded' ELSE 'partially_refunded' END"
        }
    }
}

/// How to find transactions (`GET /v1/transactions`). Every condition given must hold.
public struct TransactionFilter: Sendable, Equatable {
    /// Only this status.
    public var status: TransactionStatus?
    /// Only this type.
    public var type: TransactionType?
    /// Only this schedule.
    public var scheduleID: String?
    /// Only this card.
    public var secureCardReference: String?
    /// Only transactions created at or after this instant.
    public var createdFrom: Date?
    /// Only transactions created before this instant (exclusive).
    public var createdBefore: Date?
    /// Only amounts of at least this many minor units.
    public var minimumAmount: Int64?
    /// Only amounts of at most this many minor units.
    public var maximumAmount: Int64?
    /// Only this currency.
    public var currency: Currency?
    /// Free text: the transaction id exactly, a merchantReference prefix, a substring of the description
    /// (both ignoring ASCII case), when it is four digits the last four digits of the card, when it
    /// reads as an amount (`19.99`, `20`) that amount in major units of the transaction's currency, and
    /// what ``textNameMACs`` and ``textDay`` say.
    public var text: String?
    /// Only transactions before this sequence in the page's order (above it newest first, below it
    /// oldest first): the first transaction beyond a bounded search window (``TransactionSearchWindow``).
    public var windowStop: Int64?
    /// The blind-index MACs of the text's words (set by ``TransactionService/resolvingText(of:merchant:)``):
    /// a payment by a stored card whose holder name has every one of them matches. The name is never
    /// compared in clear.
    public var textNameMACs: [[UInt8]]?
    /// When the text is a date (`2026-11-26`): that day of the merchant's time zone, as instants
    /// `[start, end)` (set by ``TransactionService/resolvingText(of:merchant:)``); a transaction
    /// created in it matches.
    public var textDay: Range<Date>?

    /// Creates a filter.
    public init(
        status: TransactionStatus? = nil, type: TransactionType? = nil, scheduleID: String? = nil, secureCardReference: String? = nil,
        createdFrom: Date? = nil, createdBefore: Date? = nil, minimumAmount: Int64? = nil, maximumAmount: Int64? = nil,
        currency: Currency? = nil, text: String? = nil
    ) {
        self.status = status
        self.type = type
        self.scheduleID = scheduleID
        self.secureCardReference = secureCardReference
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
        self.minimumAmount = minimumAmount
        self.maximumAmount = maximumAmount
        self.currency = currency
        self.text = text
    }
}

/// The order of a transaction list: recording order (`seq`). It is `createdAt` order, except between
/// transactions recorded in the same instants by concurrent requests; keyset pages on `seq` never
/// skip or repeat a row while others are recorded.
public enum TransactionSortOrder: String, Sendable, CaseIterable {
    /// Newest first (`sort=-createdAt`, the default).
    case newestFirst
    /// Oldest first (`sort=createdAt`).
    case oldestFirst
}

/// Persistence of transactions. Every change records its audit event atomically.
public protocol TransactionStore: Sendable {
    /// Records a transaction before its gateway call.
    func insertTransaction(_ transaction: Transaction, audit: AuditEntry) async throws
    /// Records a transaction before its gateway call unless, with `since`, a live transaction with
    /// the same ``Transaction/duplicateMAC`` was recorded at or after `since` (then throws
    /// `TransactionError.notAllowed` `duplicate_transaction` and records nothing); checked in the
    /// same write, so two identical requests at once cannot both pass.
    func insertTransaction(_ transaction: Transaction, refusingDuplicatesSince since: Date?, audit: AuditEntry) async throws
    /// Records a follow-up (capture, void, refund) before its gateway call. `check` runs inside
    /// the same write transaction with the freshly read original and its existing follow-ups, so
    /// two concurrent refunds cannot exceed what remains; it throws to refuse.
    func insertFollowUp(
        _ transaction: Transaction, check: @escaping @Sendable (_ parent: Transaction, _ followUps: [Transaction]) throws -> Void, audit: AuditEntry
    ) async throws
    /// Records a gateway outcome (and the original's change, for an approved follow-up), with the
    /// `notices` the domain built for it (``OutcomeNotices/outcome(of:parties:now:)``) in the same commit.
    func completeTransaction(_ transaction: Transaction, parentUpdate: ParentUpdate?, audit: AuditEntry, notices: OutcomeNotices) async throws
    /// Links a transaction to the card registered by its sale, with its binding recomputed by the
    /// domain over the new card token (``TransactionBinding``).
    func attachSecureCard(
        transactionID: String, merchantID: String, secureCardReference: String, merchantReference: String, binding: [UInt8]
    ) async throws
    /// One transaction of a merchant.
    func transaction(merchantID: String, id: String) async throws -> Transaction?
    /// A page of a merchant's transactions in `order`, starting after the transaction with sequence
    /// `afterSequence` (keyset pagination: inserts never shift a page).
    func transactions(
        merchantID: String, filter: TransactionFilter, order: TransactionSortOrder, afterSequence: Int64?, limit: Int
    ) async throws -> [Transaction]
    /// The sequence of the merchant's transaction `offset` places after `afterSequence` in `order`
    /// (offset 0: the first one after it), nil when there are not that many: the first transaction
    /// beyond a search window of `offset` transactions. A walk of the merchant's sequence index only.
    func transactionSequence(merchantID: String, order: TransactionSortOrder, afterSequence: Int64?, offset: Int) async throws -> Int64?
    /// Count, sum, minimum and maximum of the amounts of a merchant's transactions per period, currency
    /// and status, and the sums of their captured, refunded and voided amounts, aggregated by the
    /// store; periods are half-open instants `[start, end)`.
    func transactionTotals(merchantID: String, periods: [StatisticsPeriod], selection: StatisticsSelection) async throws -> [StatisticsTotals]
}

extension TransactionStore {
    /// A page of a merchant's transactions, newest first, older than `beforeSequence`.
    public func transactions(merchantID: String, filter: TransactionFilter, beforeSequence: Int64?, limit: Int) async throws -> [Transaction] {
        try await transactions(merchantID: merchantID, filter: filter, order: .newestFirst, afterSequence: beforeSequence, limit: limit)
    }
}
