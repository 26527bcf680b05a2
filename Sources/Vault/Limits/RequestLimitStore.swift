/// Which budget a request draws on (both are shared by every server of one database).
public enum RequestLimitScope: String, Sendable, CaseIterable {
    /// The per-API-key rate limit; the subject is the API key's id.
    case apiKey = "api_key"
    /// Failed authentications per client address; the subject is the address (IPv6 by its /64).
    case failedAuthentication = "failed_auth"
}

/// A token bucket's shape: `capacity` requests at once, refilled at `perSecond`.
public struct RequestLimitRule: Sendable, Equatable {
    /// Bucket capacity (at least 1).
    public var capacity: Double
    /// Tokens regained per second; 0 turns the limit off.
    public var perSecond: Double

    /// A rule of `capacity` at once and `perSecond` sustained.
    public init(capacity: Double, perSecond: Double) {
        self.capacity = max(1, capacity)
        self.perSecond = max(0, perSecond)
    }

    /// Whether requests are limited at all.
    public var isEnabled: Bool { perSecond > 0 }
}

/// What one request gets from a limit.
public enum RequestLimitDecision: Sendable, Equatable {
    /// Go ahead (a token was taken).
    case allowed
    /// Refused; a token will be there after this many whole seconds.
    case limited(retryAfterSeconds: Int)
}

/// Where the per-key rate limit and the failed-authentication limiter keep their buckets.
///
/// In memory for one process (SQLite: one machine); in the database when several servers share
/// one (PostgreSQL: one atomic statement per request), so a key's limit is global.
public protocol RequestLimitStore: Sendable {
    /// Takes one token from the bucket of `subject` in `scope` (an API key id, or a client address
    /// already reduced to its counting key); the answer says whether it was there.
    /// - Throws: when the shared store cannot be reached (the caller decides whether to fail open).
    func take(_ scope: RequestLimitScope, subject: String) async throws -> RequestLimitDecision
}
