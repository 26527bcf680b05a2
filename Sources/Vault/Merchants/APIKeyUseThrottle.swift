import Foundation
import Synchronization

/// Decides when an API key's last use is written: at most once per ``interval`` per key and
/// process, and not while the stored value is younger than that (another server wrote it), so
/// recording use costs no write per request.
final class APIKeyUseThrottle: Sendable {
    /// The longest a key's recorded last use lags its real one (60 s).
    static let interval: TimeInterval = 60

    private let recorded = Mutex<[String: Date]>([:])

    /// Whether to write `now` as the last use of `keyID`, whose stored last use is `lastRecorded`;
    /// true also notes it, so concurrent requests of the key do not all write.
    func shouldRecord(keyID: String, lastRecorded: Date?, now: Date) -> Bool {
        if let lastRecorded, now.timeIntervalSince(lastRecorded) < Self.interval { return false }
        return recorded.withLock { recorded in
            if let last = recorded[keyID], now.timeIntervalSince(last) < Self.interval { return false }
            recorded[keyID] = now
            return true
        }
    }
}
