public import Foundation

/// Deletes capture sessions that ended more than a retention ago, with the sealed data they hold
/// (the card-registration details sealed under the merchant's data key): a session is kept while
/// it can still be used or looked up by the merchant right after, then goes.
///
/// A session has ended when it was used (`completed`, `failed`: ``usedStatuses``) or expired. One
/// still open (`open`, `submitting`, not expired) is never deleted, whatever its age. `vault serve`
/// runs a pass hourly.
public struct CaptureSessionPurge: Sendable {
    /// The statuses of a session spent: it takes no card any more.
    public static let usedStatuses: [CaptureSession.Status] = [.completed, .failed]

    private let store: any CaptureSessionStore
    private let retention: TimeInterval

    /// A purge over `store` keeping ended sessions for `retentionHours`.
    public init(store: any CaptureSessionStore, retentionHours: Int) {
        self.store = store
        retention = TimeInterval(max(1, retentionHours)) * 3600
    }

    /// Deletes every session that ended before `now` minus the retention, `batchSize` at a time
    /// (each batch a write of its own).
    /// - Returns: how many were deleted.
    public func run(now: Date = Date(), batchSize: Int = 500) async throws -> Int {
        let cutoff = now.addingTimeInterval(-retention)
        var total = 0
        while true {
            let deleted = try await store.deleteCaptureSessions(used: Self.usedStatuses, endedBefore: cutoff, limit: batchSize)
            total += deleted
            if deleted < batchSize { return total }
        }
    }
}
