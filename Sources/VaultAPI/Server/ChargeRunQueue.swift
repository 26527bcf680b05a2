public import Scheduler
import Synchronization

/// A charge run accepted over HTTP, waiting for `ChargeRunService`.
public struct ChargeRunJob: Sendable {
    /// The run as inserted (status `running`).
    public var record: ChargeRunRecord
    /// What to charge.
    public var options: ChargeRunner.Options
    /// Who started it, for the audit log.
    public var actor: String

    /// Creates a job.
    public init(record: ChargeRunRecord, options: ChargeRunner.Options, actor: String) {
        self.record = record
        self.options = options
        self.actor = actor
    }
}

/// Hands runs from the HTTP route to `ChargeRunService`. Refuses them while no service is
/// running (before start, after graceful shutdown), so a run is never left `running` with no
/// task behind it.
public final class ChargeRunQueue: Sendable {
    private let continuation = Mutex<AsyncStream<ChargeRunJob>.Continuation?>(nil)

    /// An empty queue, not accepting until a service runs.
    public init() {}

    /// Whether a service is running to take jobs.
    public var isAccepting: Bool { continuation.withLock { $0 != nil } }

    /// Queues a job; false when no service will run it.
    public func submit(_ job: ChargeRunJob) -> Bool {
        continuation.withLock { continuation in
            guard let continuation else { return false }
            return if case .enqueued = continuation.yield(job) { true } else { false }
        }
    }

    /// Starts accepting; the returned stream is the jobs, for the one service that runs them.
    public func open() -> AsyncStream<ChargeRunJob> {
        let (stream, fresh) = AsyncStream.makeStream(of: ChargeRunJob.self)
        continuation.withLock { continuation in
            continuation?.finish()
            continuation = fresh
        }
        return stream
    }

    /// Stops accepting; the stream ends once the queued jobs are taken.
    public func close() {
        continuation.withLock { continuation in
            continuation?.finish()
            continuation = nil
        }
    }
}
