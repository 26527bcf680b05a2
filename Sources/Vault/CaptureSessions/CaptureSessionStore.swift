public import Foundation

/// Where capture sessions are kept. The domain decides every change (``CaptureSessionTransition``);
/// an engine stores the row and applies a transition as one guarded update.
public protocol CaptureSessionStore: Sendable {
    /// Inserts a new session with its `capture_session.created` audit event, in one write.
    func insertCaptureSession(_ row: CaptureSessionRow, audit: AuditEntry) async throws

    /// The session with this id, of any merchant (a card submission names only the session).
    func captureSession(id: String) async throws -> CaptureSessionRow?

    /// Applies `transition` if the session still has its `from` status (and has not expired, when
    /// the transition says so), with its audit event; nothing otherwise.
    /// - Returns: whether the row changed.
    func applyCaptureSessionTransition(_ transition: CaptureSessionTransition) async throws -> Bool

    /// Deletes up to `limit` sessions that ended before `cutoff`: those in one of the `used`
    /// statuses last changed before it, and those of any status that expired before it; never
    /// another. The sealed data goes with the row.
    /// - Returns: how many were deleted.
    func deleteCaptureSessions(used: [CaptureSession.Status], endedBefore cutoff: Date, limit: Int) async throws -> Int

    /// Up to `limit` of the merchant's sessions (of any status) whose details are sealed under a
    /// data-key version below `belowKeyVersion`.
    func captureSessionsToReseal(merchantID: String, belowKeyVersion: Int, limit: Int) async throws -> [CaptureSessionRow]

    /// Replaces the session's sealed details by `new`, sealed under `keyVersion`, if they are still
    /// `old`, changing nothing else; whether they were replaced.
    func resealCaptureSessionDetails(id: String, old: [UInt8], new: [UInt8], keyVersion: Int) async throws -> Bool
}
