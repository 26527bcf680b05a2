import Synchronization

/// A small write that may wait for the next write batch instead of a write of its own (the store
/// queues read-audit events this way): it runs inside that batch's transaction.
public typealias DeferredWrite = @Sendable (SQLiteConnection) throws -> Void

/// Writes queued to be run by the next write batch: the caller enqueues and returns without waiting
/// for a commit, and many share one batch and one fsync.
///
/// On a crash, writes enqueued and not yet committed (at most those of the last batch interval,
/// a few milliseconds) are lost; on an orderly close they are committed first (the flush job is
/// queued before the writer stops accepting jobs).
final class DeferredWriteQueue: Sendable {
    private struct State {
        var writes: [DeferredWrite] = []
        var isFlushScheduled = false
    }

    private let state = Mutex(State())

    /// Adds `write`; returns true when the caller must schedule a flush (none is pending).
    func enqueue(_ write: @escaping DeferredWrite) -> Bool {
        state.withLock { state in
            state.writes.append(write)
            guard !state.isFlushScheduled else { return false }
            state.isFlushScheduled = true
            return true
        }
    }

    /// Takes every queued write (on the writer thread, inside a batch's transaction).
    func drain() -> [DeferredWrite] {
        state.withLock { state in
            state.isFlushScheduled = false
            defer { state.writes.removeAll(keepingCapacity: true) }
            return state.writes
        }
    }

    /// Puts back writes whose batch did not commit, ahead of newer ones; returns true when the
    /// caller must schedule a flush.
    func requeue(_ writes: [DeferredWrite]) -> Bool {
        state.withLock { state in
            state.writes.insert(contentsOf: writes, at: 0)
            guard !state.isFlushScheduled else { return false }
            state.isFlushScheduled = true
            return true
        }
    }

    /// Puts back writes that failed (or none, when the batch had no transaction to run them in) and
    /// clears the pending flush: the next enqueue schedules one again, so a failure is retried at
    /// the pace of new writes, never dropped and never in a loop of its own.
    func putBack(_ writes: [DeferredWrite]) {
        state.withLock { state in
            state.writes.insert(contentsOf: writes, at: 0)
            state.isFlushScheduled = false
        }
    }

    /// Writes waiting (for tests).
    var count: Int { state.withLock { $0.writes.count } }
}
