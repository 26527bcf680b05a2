import Foundation
public import Logging
public import Scheduler
public import ServiceLifecycle
import Synchronization
public import VaultAPI

/// Runs charge runs started over HTTP as children of the service group of `vault serve`:
/// each run's progress and final writes are ordered (``ProgressSaver``), graceful
/// shutdown stops new runs and stops those in flight cleanly (``ChargeRunStop``: they claim
/// nothing more, finish their gateway calls, and are recorded `failed` with their summary, which
/// says `stoppedBy: shutdown`; the steps they did not begin stay due), and nothing outlives the
/// server. Cancellation (a shutdown that does not wait) still cancels them.
public struct ChargeRunService: Service {
    /// Where the route puts runs.
    public let queue: ChargeRunQueue
    /// Builds the runner for each run.
    public let makeRunner: @Sendable () -> ChargeRunner
    /// Where runs are recorded.
    public let store: any ChargeRunStore
    /// Where failed runs are reported.
    public let logger: Logger

    /// Creates the service.
    public init(queue: ChargeRunQueue, store: any ChargeRunStore, logger: Logger, makeRunner: @escaping @Sendable () -> ChargeRunner) {
        self.queue = queue
        self.store = store
        self.logger = logger
        self.makeRunner = makeRunner
    }

    /// Takes runs until graceful shutdown or cancellation, and returns when the last has been recorded.
    public func run() async throws {
        let jobs = queue.open()
        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await gracefulShutdown()
                queue.close()
            }
            for await job in jobs {
                group.addTask {
                    let stop = ChargeRunStop()
                    await withGracefulShutdownHandler {
                        await execute(job, stop: stop)
                    } onGracefulShutdown: {
                        stop.request("shutdown")
                    }
                }
            }
            // Graceful shutdown closed the queue: the runs in flight were asked to stop and finish
            // on their own. Cancelled (not graceful): the jobs stream ended; end the shutdown
            // watcher and the runs too.
            queue.close()
            if Task.isCancelled { group.cancelAll() }
        }
    }

    func execute(_ job: ChargeRunJob, stop: ChargeRunStop? = nil) async {
        var stoppable = job.options
        stoppable.stop = stop
        let options = stoppable
        let runner = makeRunner()
        let store = self.store
        let logger = self.logger
        let saver = ProgressSaver(record: job.record) { try await store.updateChargeRun($0) }
        await saver.run { progress in
            do {
                let summary = try await runner.run(options, runID: job.record.id, actor: job.actor, progress: progress)
                ChargeRunMetrics.record(summary)
                return summary
            } catch {
                logger.error("charge run failed", metadata: ["run": "\(job.record.id)", "error": "\(error)"])
                throw error
            }
        }
    }
}

/// Saves a run's progress at most once per `minimumInterval`, then its final state.
///
/// Progress is written by one writer in order, and the final write waits for it: a progress
/// write can no longer land after the final one and turn a finished run back to `running` (it
/// used to be a detached task per save).
final class ProgressSaver: Sendable {
    private let record: ChargeRunRecord
    private let minimumInterval: Duration
    private let write: @Sendable (ChargeRunRecord) async throws -> Void
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    init(record: ChargeRunRecord, minimumInterval: Duration = .seconds(1),
         write: @escaping @Sendable (ChargeRunRecord) async throws -> Void) {
        self.record = record
        self.minimumInterval = minimumInterval
        self.write = write
        last.withLock { $0 = minimumInterval == .zero ? nil : ContinuousClock.now }
    }

    /// Runs `body`, which reports progress through the closure it is given; writes the progress,
    /// then (after every progress write has finished) the final record: `completed` when the
    /// summary says every step settled, `failed` otherwise or when `body` throws.
    func run(_ body: (@escaping @Sendable (ChargeRunSummary) -> Void) async throws -> ChargeRunSummary) async {
        let (updates, continuation) = AsyncStream.makeStream(of: ChargeRunRecord.self, bufferingPolicy: .bufferingNewest(1))
        let write = self.write
        async let written: Void = {
            for await progress in updates { try? await write(progress) }
        }()
        let summary: ChargeRunSummary?
        do {
            summary = try await body { summary in
                guard self.isDue(), let progress = self.progressRecord(summary) else { return }
                continuation.yield(progress)
            }
        } catch {
            summary = nil
        }
        continuation.finish()
        await written
        var finished = record
        finished.status = summary?.settled == true ? .completed : .failed
        finished.finishedAt = Date()
        finished.summary = summary.flatMap(Self.encoded)
        try? await write(finished)
    }

    private func isDue() -> Bool {
        last.withLock { last in
            let now = ContinuousClock.now
            if let previous = last, now - previous < minimumInterval { return false }
            last = now
            return true
        }
    }

    private func progressRecord(_ summary: ChargeRunSummary) -> ChargeRunRecord? {
        var progress = record
        progress.summary = Self.encoded(summary)
        return progress
    }

    private static func encoded(_ summary: ChargeRunSummary) -> String? {
        try? String(decoding: JSONCoding.encoder.encode(summary), as: UTF8.self)
    }
}
