import Synchronization

/// Ends a charge run early and cleanly: asked by a signal (`vault charge run` on SIGTERM or
/// SIGINT) or when the run's deadline (`--max-duration`) passes.
///
/// A stopped run claims nothing more and writes no further attempt; the calls in flight, and the
/// attempts already written (their calls start at once), finish and their outcomes are written;
/// the steps it had claimed but not begun are released, still due, for the next run. Then it
/// returns its summary, saying why it stopped (``ChargeRunSummary/stoppedBy``).
public final class ChargeRunStop: Sendable {
    private let reason = Mutex<String?>(nil)
    private let deadline: ContinuousClock.Instant?

    /// A stop that is asked by ``request(_:)``, and, with a `deadline`, when it passes.
    public init(deadline: ContinuousClock.Instant? = nil) {
        self.deadline = deadline
    }

    /// Asks the run to stop; the first reason given is kept (`signal`, ...).
    public func request(_ why: String) {
        reason.withLock { if $0 == nil { $0 = why } }
    }

    /// Why the run is to stop, or nil while it goes on: the reason asked, or `max_duration` once
    /// the deadline has passed.
    public var requested: String? {
        if let asked = reason.withLock({ $0 }) { return asked }
        if let deadline, ContinuousClock.now >= deadline { return "max_duration" }
        return nil
    }
}
