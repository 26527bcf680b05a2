/// Where a stored Idempotency-Key's request stands: its answer is stored once it completed.
public enum IdempotencyRecordState: String, Sendable, CaseIterable, StatusName {
    /// The request is running (or its server died mid-request and the claim awaits take-over).
    case inProgress = "in_progress"
    /// The request finished; its sealed answer is replayed to a retry.
    case completed
}
