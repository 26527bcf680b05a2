internal import CSQLite
import Foundation
import Vault

/// One write body waiting for, or running on, the writer thread.
///
/// `perform` is dropped as soon as it has run or the job has failed, before the caller is
/// told the outcome: `writeNow` relies on this to pass a non-escaping body through.
final class WriteJob {
    /// Reports the outcome of a performed body once the batch's `COMMIT` is known (`nil` on success).
    typealias Completion = (_ commitError: (any Error)?) -> Void

    private var perform: ((SQLiteConnection) -> Completion)?
    private let failure: (any Error) -> Void

    /// - Parameters:
    ///   - perform: runs the body in its savepoint and returns how to report the outcome.
    ///   - fail: reports an error for a body that never ran (closed database, `BEGIN` failed).
    init(perform: @escaping (SQLiteConnection) -> Completion, fail: @escaping (any Error) -> Void) {
        self.perform = perform
        self.failure = fail
    }

    /// Runs the body once, releasing it before returning its completion.
    func run(on connection: SQLiteConnection) -> Completion {
        guard let perform else {
            preconditionFailure("a write job runs once")
        }
        self.perform = nil
        return perform(connection)
    }

    /// Reports `error` without running the body.
    func fail(_ error: any Error) {
        perform = nil
        failure(error)
    }
}

/// The single writer connection and its thread, committing queued write bodies in batches
/// (group commit): one `BEGIN IMMEDIATE`, one savepoint per body, one fsync'd `COMMIT`.
///
/// `@unchecked Sendable` is safe because `queue`, `isClosing`, `isFinished`, `runningThread`
/// and `committedBatches` are only touched with `condition` locked, and `connection` is only
/// used on the writer thread once that thread has started.
final class SQLiteWriter: @unchecked Sendable {
    private let connection: SQLiteConnection
    private let maxBatchSize: Int
    private let condition = NSCondition()
    private var queue: [WriteJob] = []
    private var isClosing = false
    private var isFinished = false
    private var runningThread: Thread?
    private var committedBatches = 0
    /// Held for as long as the writer thread runs: the connection's WAL hook points at it.
    private let checkpointer: SQLiteCheckpointer?
    /// Deferred writes (`SQLiteDatabase.writeLater`), run at the end of every batch.
    private let deferredWrites: DeferredWriteQueue?

    /// Takes ownership of `connection` and starts the writer thread.
    init(connection: SQLiteConnection, maxBatchSize: Int, checkpointer: SQLiteCheckpointer? = nil, deferredWrites: DeferredWriteQueue? = nil) {
        self.connection = connection
        self.maxBatchSize = max(1, maxBatchSize)
        self.checkpointer = checkpointer
        self.deferredWrites = deferredWrites
        NamedThread.start("vault-db-writer") { [self] in runLoop() }
    }

    /// Queues `job`; it fails at once if the writer is closing.
    func submit(_ job: WriteJob) {
        condition.lock()
        guard !isClosing else {
            condition.unlock()
            job.fail(SQLiteError.misuse("the database is closed"))
            return
        }
        queue.append(job)
        condition.broadcast()
        condition.unlock()
    }

    /// True when called from the writer thread, i.e. from inside a write body.
    var isOnWriterThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return runningThread.map { $0 === Thread.current } ?? false
    }

    /// Number of batches committed so far (each one `COMMIT`, one fsync).
    var commitCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return committedBatches
    }

    /// Number of jobs queued and not yet taken into a batch.
    var queuedJobCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count
    }

    /// Stops accepting jobs, lets queued ones commit, and closes the connection. Idempotent.
    ///
    /// Waits for the writer thread to finish, except when called from that thread itself.
    func close() {
        condition.lock()
        defer { condition.unlock() }
        isClosing = true
        condition.broadcast()
        guard runningThread.map({ $0 !== Thread.current }) ?? true else { return }
        while !isFinished {
            condition.wait()
        }
    }

    private func runLoop() {
        condition.lock()
        runningThread = Thread.current
        condition.unlock()
        while let batch = nextBatch() {
            commit(batch)
        }
        connection.close()
        condition.lock()
        isFinished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for jobs and takes up to `maxBatchSize` of them; `nil` once closing and drained.
    private func nextBatch() -> [WriteJob]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !isClosing {
            condition.wait()
        }
        guard !queue.isEmpty else { return nil }
        let count = min(maxBatchSize, queue.count)
        let batch = Array(queue.prefix(count))
        queue.removeFirst(count)
        return batch
    }

    private func commit(_ batch: [WriteJob]) {
        // A body that ended the batch's transaction itself and opened another must not wedge the writer.
        connection.rollbackIfStillInTransaction()
        do {
            try connection.beginImmediateTransaction()
        } catch {
            batch.forEach { $0.fail(error) }
            return
        }
        var completions: [WriteJob.Completion] = []
        completions.reserveCapacity(batch.count)
        var performed = 0
        // A body's error can make SQLite roll back the whole transaction (SQLITE_FULL, IOERR);
        // later bodies must not then run in autocommit mode, so they go back to the queue.
        while performed < batch.count, connection.isInTransaction {
            completions.append(batch[performed].run(on: connection))
            performed += 1
        }
        let deferred = runDeferredWrites()
        let commitError = finishTransaction()
        if performed < batch.count {
            requeue(batch[performed...])
        }
        if commitError != nil, !deferred.isEmpty, deferredWrites?.requeue(deferred) == true {
            submitDeferredFlush()
        }
        for completion in completions {
            completion(commitError)
        }
    }

    /// Runs the deferred writes in a savepoint of the batch's transaction; returns them for a retry
    /// if the commit fails. When they fail (or SQLite already rolled the batch back) they stay
    /// queued for the next flush, and the batch's own writes are left alone.
    private func runDeferredWrites() -> [DeferredWrite] {
        guard let deferredWrites else { return [] }
        guard connection.isInTransaction else {
            deferredWrites.putBack([])
            return []
        }
        let writes = deferredWrites.drain()
        guard !writes.isEmpty else { return [] }
        do {
            try connection.inSavepoint {
                for write in writes { try write(connection) }
            }
        } catch {
            deferredWrites.putBack(writes)
            return []
        }
        return writes
    }

    /// Queues an empty write whose batch runs the deferred writes (when no other write comes).
    func submitDeferredFlush() {
        submit(WriteJob(perform: { _ in { _ in } }, fail: { _ in }))
    }

    /// Commits the batch's transaction; the error every performed body reports, or `nil`.
    private func finishTransaction() -> (any Error)? {
        guard connection.isInTransaction else {
            return SQLiteError(
                extendedCode: SQLITE_ABORT,
                message: "SQLite rolled back the write batch after an error in one of its bodies"
            )
        }
        do {
            try connection.commitTransaction()
        } catch {
            return error
        }
        condition.lock()
        committedBatches += 1
        condition.unlock()
        return nil
    }

    private func requeue(_ jobs: ArraySlice<WriteJob>) {
        condition.lock()
        queue.insert(contentsOf: jobs, at: 0)
        condition.unlock()
    }
}
