public import Vault

/// The request limits of one process (SQLite: one machine): the per-key ``RateLimiter`` and the
/// ``FailedAuthenticationLimiter`` in memory.
///
/// Servers sharing a PostgreSQL database use `PostgresRequestLimits` instead, so a key's limit and
/// an address's failures count once across all of them.
public final class InProcessRequestLimits: RequestLimitStore {
    let rates: RateLimiter
    let failures: FailedAuthenticationLimiter

    /// The limits as configured (`rateLimit`, `server.failedAuthLimit`/`failedAuthWindowSeconds`),
    /// on the system clock unless one is given.
    public convenience init(server: HTTPServerSettings, rateLimit: RateLimitSettings, clock: (@Sendable () -> Duration)? = nil) {
        let clock = clock ?? RateLimiter.systemClock()
        self.init(
            rates: RateLimiter(configuration: rateLimit, clock: clock),
            failures: FailedAuthenticationLimiter(limit: server.failedAuthLimit, windowSeconds: server.failedAuthWindowSeconds, clock: clock))
    }

    init(rates: RateLimiter, failures: FailedAuthenticationLimiter) {
        self.rates = rates
        self.failures = failures
    }

    public func take(_ scope: RequestLimitScope, subject: String) async -> RequestLimitDecision {
        switch scope {
        case .apiKey:
            return rates.acquire(key: subject)
        case .failedAuthentication:
            switch failures.recordFailure(from: subject) {
            case .unauthenticated: return .allowed
            case .limited(let seconds): return .limited(retryAfterSeconds: seconds)
            }
        }
    }
}
