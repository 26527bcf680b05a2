import Synchronization

/// The timers of `RequestTimeoutMiddleware`: one watchdog task checks every pending request's
/// deadline each `tick`, instead of every request arming (and, nearly always, cancelling) its own
/// `Task.sleep` timer, which cost a dispatch timer registration and a wake-up of dispatch's manager
/// thread per request. Deadlines are met to within one tick, plenty for timeouts of seconds.
final class RequestDeadlines: Sendable {
    /// The process's deadlines, checked every 100 ms.
    static let shared = RequestDeadlines(tick: .milliseconds(100))

    private struct State {
        var waiting: [UInt64: (deadline: ContinuousClock.Instant, continuation: CheckedContinuation<Void, Never>)] = [:]
        var cancelledBeforeWaiting: Set<UInt64> = []
        var nextID: UInt64 = 0
        var watchdogRunning = false
    }

    private let tick: Duration
    private let state = Mutex(State())

    /// Deadlines checked every `tick`.
    init(tick: Duration) {
        self.tick = tick
    }

    /// Returns once `timeout` has passed; throws `CancellationError` as soon as the task is cancelled.
    func wait(for timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (resumeNow, startWatchdog) = state.withLock { state -> (Bool, Bool) in
                    if state.cancelledBeforeWaiting.remove(id) != nil { return (true, false) }
                    state.waiting[id] = (deadline, continuation)
                    defer { state.watchdogRunning = true }
                    return (false, !state.watchdogRunning)
                }
                if resumeNow { continuation.resume() }
                if startWatchdog { startWatching() }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                guard let entry = state.waiting.removeValue(forKey: id) else {
                    state.cancelledBeforeWaiting.insert(id)
                    return CheckedContinuation<Void, Never>?.none
                }
                return entry.continuation
            }
            continuation?.resume()
        }
        state.withLock { _ = $0.cancelledBeforeWaiting.remove(id) }
        try Task.checkCancellation()
    }

    /// Requests waiting now (for tests).
    var waitingCount: Int {
        state.withLock { $0.waiting.count }
    }

    /// Resumes every waiter whose deadline has passed; stops when nobody is waiting (the next
    /// waiter starts it again).
    private func startWatching() {
        Task.detached { [self] in
            while true {
                try? await Task.sleep(for: tick)
                let now = ContinuousClock.now
                let (due, stop) = state.withLock { state in
                    let due = state.waiting.filter { $0.value.deadline <= now }
                    for id in due.keys { state.waiting.removeValue(forKey: id) }
                    if state.waiting.isEmpty { state.watchdogRunning = false }
                    return (due.map(\.value.continuation), state.waiting.isEmpty)
                }
                due.forEach { $0.resume() }
                if stop { return }
            }
        }
    }
}
