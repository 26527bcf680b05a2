import Synchronization

/// A counting semaphore over the PostgreSQL test databases of the whole test process: every test of
/// every module starts at once, and their connection pools together pass the test cluster's
/// `max_connections` (300) — "sorry, too many clients already" then fails tests at random in the
/// PostgreSQL pass. A fixture takes a slot before it creates its database and gives it back once
/// the database is dropped.
public final class PostgresTestSlots: Sendable {
    /// Databases with their pools alive at once (one fixture's pool, a second node's and its
    /// `vault` processes' stay at a few connections each; 24 of them peak well under 300).
    public static let limit = 24
    /// The one semaphore of the test process.
    public static let shared = PostgresTestSlots(limit: limit)

    private struct State {
        var available: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    public init(limit: Int) {
        state = Mutex(State(available: limit))
    }

    /// Takes a slot, waiting for one when none is free.
    public func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                guard state.available > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.available -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// Gives a slot back (to the first waiter, if any).
    public func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
