import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization
public import Vault

/// A token bucket per API key: each key may send `burst` requests at once and `requestsPerSecond`
/// sustained; beyond that a request is refused with how long to wait.
///
/// Time comes from an injected monotonic clock so tests can drive it. Buckets live in memory, per
/// process (``InProcessRequestLimits``); servers sharing a PostgreSQL database share them there.
public final class RateLimiter: Sendable {
    /// What one request gets.
    public typealias Decision = RequestLimitDecision

    private struct State {
        var buckets: [String: TokenBucket] = [:]
        var pruneAtCount = RateLimiter.pruneThreshold
    }

    /// Tokens added per second; 0 turns limiting off.
    public let requestsPerSecond: Double
    /// Bucket capacity.
    public let burst: Double
    private let clock: @Sendable () -> Duration
    private let state = Mutex(State())

    /// Buckets are pruned (full ones forgotten) when there are more than this many.
    static let pruneThreshold = 4096

    /// Creates a limiter.
    /// - Parameters:
    ///   - requestsPerSecond: sustained rate per key; 0 disables the limiter.
    ///   - burst: how many requests a key may send at once (at least 1).
    ///   - clock: monotonic time since any fixed origin.
    public init(requestsPerSecond: Int, burst: Int, clock: @escaping @Sendable () -> Duration = RateLimiter.systemClock()) {
        self.requestsPerSecond = Double(max(0, requestsPerSecond))
        self.burst = Double(max(1, burst))
        self.clock = clock
    }

    /// A limiter with the configured rate and burst.
    public convenience init(configuration: RateLimitSettings, clock: @escaping @Sendable () -> Duration = RateLimiter.systemClock()) {
        self.init(requestsPerSecond: configuration.requestsPerSecond, burst: configuration.burst, clock: clock)
    }

    /// Time on `ContinuousClock` since the call.
    public static func systemClock() -> @Sendable () -> Duration {
        let origin = ContinuousClock.now
        return { ContinuousClock.now - origin }
    }

    /// Whether requests are limited at all.
    public var isEnabled: Bool { requestsPerSecond > 0 }

    /// Takes a token from `key`'s bucket, refilled for the time since its last request.
    public func acquire(key: String) -> Decision {
        guard isEnabled else { return .allowed }
        let now = clock()
        return state.withLock { state in
            var bucket = state.buckets[key] ?? TokenBucket(capacity: burst, at: now)
            bucket.refill(at: now, capacity: burst, perSecond: requestsPerSecond)
            let decision: Decision = bucket.take(perSecond: requestsPerSecond).map { .limited(retryAfterSeconds: $0) } ?? .allowed
            state.buckets[key] = bucket
            if state.buckets.count > state.pruneAtCount { prune(&state, now: now) }
            return decision
        }
    }

    /// Forgets buckets that have refilled completely: a fresh bucket is the same thing.
    private func prune(_ state: inout State, now: Duration) {
        state.buckets = state.buckets.filter { _, bucket in !bucket.isFull(at: now, capacity: burst, perSecond: requestsPerSecond) }
        state.pruneAtCount = max(Self.pruneThreshold, state.buckets.count * 2)
    }
}

/// Applies the per-key rate limit to authenticated requests: 429 `rate_limit_error` with `Retry-After`.
///
/// The buckets are in a ``RequestLimitStore``: this process's memory, or the shared database. A
/// store that cannot be reached lets the request through (the limit guards capacity; refusing every
/// request because the counter is away would turn its outage into the API's).
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = AuthenticatedContext

    let limits: any RequestLimitStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let decision: RequestLimitDecision
        do {
            decision = try await limits.take(.apiKey, subject: context.identity.apiKey.id)
        } catch {
            context.logger.warning("rate limit store unavailable; request let through", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            decision = .allowed
        }
        switch decision {
        case .allowed:
            return try await next(request, context)
        case .limited(let seconds):
            throw APIError.rateLimited(retryAfterSeconds: seconds)
        }
    }
}

extension APIError {
    /// 429: the API key sent more requests than its rate allows.
    static func rateLimited(retryAfterSeconds: Int) -> APIError {
        var error = APIError(
            status: .tooManyRequests, type: "rate_limit_error", code: "rate_limited",
            message: "Too many requests for this API key; retry after \(retryAfterSeconds) s.")
        error.headers[.retryAfter] = String(retryAfterSeconds)
        return error
    }
}
