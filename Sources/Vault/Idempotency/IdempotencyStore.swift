public import Foundation

/// What a POST with an `Idempotency-Key` finds when it starts.
public enum IdempotencyClaim: Sendable, Equatable {
    /// First use of the key: the request runs, then `completeIdempotentRequest` stores its answer.
    case started
    /// The same key and body already ran: answer with the stored response.
    case replay(status: Int, body: [UInt8])
    /// The same key was used with a different request.
    case mismatch
    /// The first request with this key has not finished yet.
    case inProgress
}

/// Remembers POST responses per merchant and key so that a retried request is answered, not re-run.
public protocol IdempotencyStore: Sendable {
    /// Claims `key` for a request whose method, path and body hash to `requestHash`.
    func claimIdempotencyKey(merchantID: String, key: String, requestHash: [UInt8], now: Date) async throws -> IdempotencyClaim
    /// Stores the response of a claimed request.
    func completeIdempotentRequest(merchantID: String, key: String, status: Int, body: [UInt8]) async throws
    /// Releases a claim whose request failed on the server side, so the client may retry.
    func releaseIdempotencyKey(merchantID: String, key: String) async throws
    /// Forgets keys older than `date`; returns how many.
    func purgeIdempotencyKeys(olderThan date: Date) async throws -> Int
}
