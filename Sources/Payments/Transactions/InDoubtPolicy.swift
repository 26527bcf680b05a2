public import Foundation

/// What a gateway's look-up proves about an operation whose answer was lost, and so what the vault
/// does with it: the one rule for every transaction in doubt, scheduled or one-off, charge or follow-up.
public enum InDoubtVerdict: Sendable, Equatable {
    /// The gateway has the operation and says how it ended: record that outcome.
    case settled(GatewayResult)
    /// The gateway proved, after the grace period, that the operation never arrived: nothing was
    /// charged. A scheduled step may send its attempt again (same idempotency key); a one-off
    /// transaction is recorded as not charged and never sent again.
    case provenAbsent
    /// Not settled yet (inside the grace period, or still being processed): look again later.
    case stillInDoubt(GatewayResult)
    /// The operation may have happened and the gateway cannot prove either way (its records could
    /// not be searched, or it has held the operation for review too long): a person decides
    /// (`needs_review`). Never sent again, never settled automatically.
    case needsReview(reason: String)
}

/// How long the vault waits before it treats a lost answer as settled one way or the other.
public struct InDoubtPolicy: Sendable, Equatable {
    /// Reason prefix of a ``GatewayResult/Outcome/inDoubt(reason:)`` for an operation the gateway
    /// holds for review (fraud screening): money may still be collected or released later.
    public static let heldForReviewPrefix = "held_for_review"
    /// Reason of an operation left in doubt because the gateway answered that it duplicates one it
    /// already holds (BridgePay's 30036): evidence that a charge exists, never a reason to send again.
    public static let duplicateAnswer = "duplicate_transaction"

    /// After this long since the operation was last sent, a gateway that has no record of it has
    /// proved its absence, and one that cannot be asked sends it to review (the gateway may still be
    /// processing a request that has just arrived).
    public var grace: TimeInterval
    /// After this long since the operation was sent, a gateway that still holds it for review sends
    /// it to operator review instead of leaving it in doubt night after night.
    public var heldForReviewLimit: TimeInterval

    /// Creates a policy.
    public init(grace: TimeInterval, heldForReviewLimit: TimeInterval = 3 * 86_400) {
        self.grace = grace
        self.heldForReviewLimit = heldForReviewLimit
    }

    /// What the look-up `lookup` proves about `transaction` (in doubt, or left pending by a process
    /// that died) at `now`.
    ///
    /// - A found operation is settled with the gateway's outcome, unless the gateway is still
    ///   processing it: one held for review stays in doubt until ``heldForReviewLimit`` has passed
    ///   since it was sent, then goes to review.
    /// - `notFound` proves absence only after ``grace`` since the last send, and never for an
    ///   operation the gateway refused as a duplicate of one it holds (that goes to review).
    /// - A look-up that could not be made (or not over the whole window) never proves absence: after
    ///   ``grace`` a transaction that may have been charged (in doubt, or pending) goes to review; one
    ///   recorded as a retryable error (nothing was charged) stays in doubt.
    public func verdict(_ lookup: GatewayLookup, for transaction: Transaction, now: Date) -> InDoubtVerdict {
        let pastGrace = now.timeIntervalSince(transaction.updatedAt) >= grace
        switch lookup {
        case .found(let result):
            guard case .inDoubt(let reason) = result.outcome else { return .settled(result) }
            if reason.hasPrefix(Self.heldForReviewPrefix), now.timeIntervalSince(transaction.createdAt) >= heldForReviewLimit {
                return .needsReview(reason: reason)
            }
            return .stillInDoubt(result)
        case .notFound:
            // The gateway refused the operation as a duplicate of one it holds: that is evidence the
            // operation exists, so a search that misses it proves nothing.
            if transaction.errorCode?.hasPrefix(Self.duplicateAnswer) == true {
                return pastGrace ? .needsReview(reason: "duplicate_answer_not_found") : .stillInDoubt(.inDoubt(Self.duplicateAnswer))
            }
            return pastGrace ? .provenAbsent : .stillInDoubt(.inDoubt("awaiting_gateway: not found yet, inside the grace period"))
        case .unavailable(let reason):
            return pastGrace && transaction.mayHaveGoneThrough ? .needsReview(reason: "lookup_unavailable: \(reason)") : .stillInDoubt(.inDoubt("lookup_unavailable: \(reason)"))
        }
    }
}

extension Transaction {
    /// Whether the gateway may have carried this transaction out though the vault has no answer:
    /// recorded and unanswered (`pending`), in doubt, or in review. Such a transaction is never
    /// sent again; it is settled from the gateway's records or by an operator.
    public var mayHaveGoneThrough: Bool { [.pending, .inDoubt, .needsReview].contains(status) }
}
