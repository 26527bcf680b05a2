/// One token bucket: `capacity` requests at once, refilled at `perSecond`; what the per-key rate
/// limit and the failed-authentication limiter keep per key or address.
struct TokenBucket {
    /// Tokens left (fractions accumulate between requests).
    var tokens: Double
    /// When `tokens` was last brought up to date (monotonic time).
    var updated: Duration

    /// A full bucket at `now`.
    init(capacity: Double, at now: Duration) {
        tokens = capacity
        updated = now
    }

    /// Adds what accrued since the last update, up to `capacity`.
    mutating func refill(at now: Duration, capacity: Double, perSecond: Double) {
        tokens = min(capacity, tokens + max(0, Self.seconds(now - updated)) * perSecond)
        updated = now
    }

    /// Whether the bucket would be full at `now` (then it is the same as a fresh one and can be forgotten).
    func isFull(at now: Duration, capacity: Double, perSecond: Double) -> Bool {
        tokens + max(0, Self.seconds(now - updated)) * perSecond >= capacity
    }

    /// Takes one token; nil when taken, else the whole seconds until one is there.
    /// The epsilon keeps rounding in the refill from costing a whole second.
    mutating func take(perSecond: Double) -> Int? {
        if tokens >= 1 - 1e-9 {
            tokens = max(0, tokens - 1)
            return nil
        }
        return max(1, Int(((1 - tokens) / perSecond - 1e-9).rounded(.up)))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
