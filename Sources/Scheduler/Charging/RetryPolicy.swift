public import Foundation

/// What happens to a schedule when one of its steps finally fails.
public enum PastDuePolicy: String, Sendable, Codable, CaseIterable {
    /// The schedule becomes `past_due` and later steps are still charged.
    case `continue`
    /// The schedule is paused.
    case pause
    /// The schedule is cancelled with its remaining steps.
    case cancel
}

/// Soft-decline retries: after the k-th failed attempt the next one falls due
/// `delays[k-1]` days after the previous attempt was due; at most `maxAttempts` attempts.
/// Hard declines and `expired_card` never retry.
public struct RetryPolicy: Sendable, Equatable {
    /// Days between attempts.
    public var delaysDays: [Int]
    /// Attempts per step, the first included.
    public var maxAttempts: Int
    /// After the last failure.
    public var pastDuePolicy: PastDuePolicy

    /// Creates a policy (defaults: 1, 3, 5 days; 4 attempts; continue).
    public init(delaysDays: [Int] = [1, 3, 5], maxAttempts: Int = 4, pastDuePolicy: PastDuePolicy = .continue) {
        self.delaysDays = delaysDays
        self.maxAttempts = maxAttempts
        self.pastDuePolicy = pastDuePolicy
    }

    /// When attempt `failedAttempt + 1` falls due, or nil when no attempt remains.
    public func nextAttempt(after failedAttempt: Int, previousDueAt: Date) -> Date? {
        guard failedAttempt < maxAttempts, !delaysDays.isEmpty else { return nil }
        let delay = delaysDays[min(failedAttempt - 1, delaysDays.count - 1)]
        return previousDueAt.addingTimeInterval(TimeInterval(delay) * 86_400)
    }
}
