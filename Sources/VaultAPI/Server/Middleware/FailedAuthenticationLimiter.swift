import Foundation
import HTTPTypes
import Synchronization
import Vault

/// Failed authentications per client address: each address may fail `limit` times at once, and
/// the budget refills over `window`; beyond it a failing request is answered 429 with
/// `Retry-After` instead of 401.
///
/// Only failures are counted, so a request with a valid key never touches the limiter and is
/// never refused by it, even from an address that is limited (an attacker behind the same NAT
/// cannot lock a merchant out). Memory is bounded: at most `maxAddresses` addresses are tracked
/// (full buckets are forgotten first); beyond that, new addresses share one bucket. IPv6 clients
/// are counted per /64, the block one subscriber usually holds.
final class FailedAuthenticationLimiter: Sendable {
    /// What a failed authentication gets.
    enum Decision: Equatable, Sendable {
        /// Answer 401.
        case unauthenticated
        /// Answer 429: the address has failed too often; a new attempt is counted after this many seconds.
        case limited(retryAfterSeconds: Int)
    }

    private struct State {
        var buckets: [String: TokenBucket] = [:]
        var lastPrune: Duration?
    }

    /// The bucket shared by addresses beyond `maxAddresses`.
    static let overflowKey = "*"

    let limit: Double
    /// Tokens regained per second.
    let refillPerSecond: Double
    let maxAddresses: Int
    private let clock: @Sendable () -> Duration
    private let state = Mutex(State())

    /// A limiter allowing `limit` failures per address, refilled over `windowSeconds`.
    init(limit: Int, windowSeconds: Int, maxAddresses: Int = 10_000, clock: @escaping @Sendable () -> Duration = RateLimiter.systemClock()) {
        self.limit = Double(max(1, limit))
        self.refillPerSecond = Double(max(1, limit)) / Double(max(1, windowSeconds))
        self.maxAddresses = max(1, maxAddresses)
        self.clock = clock
    }

    /// The configured limiter.
    convenience init(configuration: HTTPServerSettings) {
        self.init(limit: configuration.failedAuthLimit, windowSeconds: configuration.failedAuthWindowSeconds)
    }

    /// Counts a failed authentication from `address` (as ``VaultRequestContext/clientAddress`` gives it).
    func recordFailure(from address: String) -> Decision {
        let key = Self.key(for: address)
        let now = clock()
        return state.withLock { state in
            let slot = slotKey(key, in: &state, now: now)
            var bucket = state.buckets[slot] ?? TokenBucket(capacity: limit, at: now)
            bucket.refill(at: now, capacity: limit, perSecond: refillPerSecond)
            defer { state.buckets[slot] = bucket }
            return bucket.take(perSecond: refillPerSecond).map { .limited(retryAfterSeconds: $0) } ?? .unauthenticated
        }
    }

    /// Addresses tracked now (for tests).
    var trackedAddresses: Int { state.withLock { $0.buckets.count } }

    /// `key` itself when it is tracked or there is room; else the shared overflow bucket. Full
    /// buckets are forgotten (at most once a second) when the table is full.
    private func slotKey(_ key: String, in state: inout State, now: Duration) -> String {
        if state.buckets[key] != nil || state.buckets.count < maxAddresses { return key }
        if state.lastPrune.map({ now - $0 >= .seconds(1) }) ?? true {
            state.lastPrune = now
            state.buckets = state.buckets.filter { _, bucket in !bucket.isFull(at: now, capacity: limit, perSecond: refillPerSecond) }
        }
        return state.buckets.count < maxAddresses ? key : Self.overflowKey
    }

    /// The counting key: see ``ClientAddressKey`` (IPv6 by /64).
    static func key(for address: String) -> String {
        ClientAddressKey.key(for: address)
    }
}

extension APIError {
    /// 429: this client address failed authentication too often.
    static func authenticationRateLimited(retryAfterSeconds: Int) -> APIError {
        var error = APIError(
            status: .tooManyRequests, type: "rate_limit_error", code: "too_many_failed_authentications",
            message: "Too many failed authentications from this address; retry after \(retryAfterSeconds) s.")
        error.headers[.retryAfter] = String(retryAfterSeconds)
        error.headers[.wwwAuthenticate] = "Bearer"
        return error
    }
}
