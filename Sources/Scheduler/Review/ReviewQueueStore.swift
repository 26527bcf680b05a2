import Foundation
public import Payments

/// One entry of the review queue as stored: the attempt in review and, for a schedule step, the
/// step it charged.
public struct ReviewQueueEntry: Sendable, Equatable {
    /// A one-off transaction in review (`needs_review`), or a step's latest attempt (the one whose
    /// answer was lost; it stays `in_doubt` while its step is in review).
    public var transaction: Transaction
    /// The step in review, nil for a one-off transaction.
    public var step: ScheduleStep?

    /// Creates an entry.
    public init(transaction: Transaction, step: ScheduleStep?) {
        self.transaction = transaction
        self.step = step
    }
}

/// Reads what waits for an operator, so it is found without SQL.
public protocol ReviewQueueStore: Sendable {
    /// What waits for an operator of `merchantID`, in the insertion order of the transactions
    /// (oldest first), after the transaction sequence `afterSequence`, at most `limit`: one-off
    /// transactions (no step) in `needs_review`, and steps in `needs_review` each with its latest
    /// attempt (the transaction whose attempt number is the step's attempt count).
    func reviewQueue(merchantID: String, afterSequence: Int64?, limit: Int) async throws -> [ReviewQueueEntry]
    /// The step `id` of one of `merchantID`'s schedules; nil when there is none.
    func scheduleStep(id: String, merchantID: String) async throws -> ScheduleStep?
}
