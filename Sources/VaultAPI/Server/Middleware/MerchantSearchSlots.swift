import HTTPTypes
import Synchronization

/// At most a few text searches (`q`) of one merchant run at once on a server.
///
/// A `q` search may scan many of the merchant's rows; without a bound, a handful of one merchant's
/// clients searching in a loop held every database connection and slowed every other merchant's
/// requests a thousandfold. A search over the merchant's limit answers 429 `too_many_searches` at
/// once (with `Retry-After`), before touching the database; other merchants are not affected.
public final class MerchantSearchSlots: Sendable {
    /// Searches one merchant may run at once.
    public let limit: Int
    private let running = Mutex<[String: Int]>([:])

    /// Slots for `limit` searches per merchant (at least one).
    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes one of the merchant's slots; false when all are taken.
    public func take(merchantID: String) -> Bool {
        running.withLock { running in
            guard running[merchantID, default: 0] < limit else { return false }
            running[merchantID, default: 0] += 1
            return true
        }
    }

    /// Gives a slot back.
    public func release(merchantID: String) {
        running.withLock { running in
            let left = running[merchantID, default: 1] - 1
            running[merchantID] = left > 0 ? left : nil
        }
    }

    /// Runs `search` in one of the merchant's slots.
    /// - Throws: 429 `too_many_searches` when the merchant's slots are all taken; `search`'s errors.
    func run<T>(merchantID: String, _ search: () async throws -> T) async throws -> T {
        guard take(merchantID: merchantID) else {
            var error = APIError(
                status: .tooManyRequests, type: "rate_limit_error", code: "too_many_searches",
                message: "Too many text searches of this merchant are running at once (at most \(limit)); retry shortly.", param: "q")
            error.headers[.retryAfter] = "1"
            throw error
        }
        defer { release(merchantID: merchantID) }
        return try await search()
    }
}
