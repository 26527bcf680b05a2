import Synchronization
import Vault

/// Audit events of reads (card retrievals, lists, searches), appended by the next write batch
/// instead of each in a write of its own: a read enqueues its event and returns without waiting
/// for a commit, and many reads share one batch and one fsync.
///
/// On a crash, events enqueued and not yet committed (at most those of the last batch interval,
/// a few milliseconds) are lost; on an orderly close they are committed first (the flush job is
/// queued before the writer stops accepting jobs).
final class DeferredAuditQueue: Sendable {
    private struct State {
        var events: [PendingAuditEvent] = []
        var isFlushScheduled = false
    }

    private let state = Mutex(State())

    /// Adds `event`; returns true when the caller must schedule a flush (none is pending).
    func enqueue(_ event: PendingAuditEvent) -> Bool {
        state.withLock { state in
            state.events.append(event)
            guard !state.isFlushScheduled else { return false }
            state.isFlushScheduled = true
            return true
        }
    }

    /// Takes every queued event (on the writer thread, inside a batch's transaction).
    func drain() -> [PendingAuditEvent] {
        state.withLock { state in
            state.isFlushScheduled = false
            defer { state.events.removeAll(keepingCapacity: true) }
            return state.events
        }
    }

    /// Puts back events whose batch did not commit, ahead of newer ones; returns true when the
    /// caller must schedule a flush.
    func requeue(_ events: [PendingAuditEvent]) -> Bool {
        state.withLock { state in
            state.events.insert(contentsOf: events, at: 0)
            guard !state.isFlushScheduled else { return false }
            state.isFlushScheduled = true
            return true
        }
    }

    /// Puts back events that could not be appended (or none, when the batch had no transaction to
    /// append them in) and clears the pending flush: the next read schedules one again, so a failure
    /// is retried at the pace of reads, never dropped and never in a loop of its own.
    func putBack(_ events: [PendingAuditEvent]) {
        state.withLock { state in
            state.events.insert(contentsOf: events, at: 0)
            state.isFlushScheduled = false
        }
    }

    /// Events waiting (for tests).
    var count: Int { state.withLock { $0.events.count } }
}
