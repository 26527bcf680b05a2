import Dispatch
import Foundation

/// The database: one writer connection on its own thread that batches concurrent write
/// transactions into one commit (group commit), plus a pool of reader connections.
///
/// Every connection runs in WAL mode with `synchronous=FULL`, so a write returns only once
/// it is on disk; throughput comes from sharing one fsync among many writes.
/// Several processes (server and charge runner) may open the same file at once.
public final class SQLiteDatabase: Sendable {
    /// Tuning for connections and batching.
    public struct Options: Sendable {
        /// Number of reader connections (at least 1).
        public var readerCount: Int = 4
        /// How long a connection waits for another connection's lock before `SQLITE_BUSY`.
        public var busyTimeoutMilliseconds: Int32 = 10_000
        /// Most write bodies committed together; 1 = one fsync'd commit per write (the benchmark baseline).
        public var maxBatchSize: Int = 256
        /// How long deferred writes (`writeLater`, the store's read-audit events) may wait for a write
        /// batch before one is started for them: writes deferred meanwhile share it.
        public var deferredWriteFlushDelay: Duration = .milliseconds(5)
        /// WAL size (frames) past which the checkpointer thread copies the log into the database.
        public var backgroundCheckpointFrames: Int32 = SQLiteCheckpointer.backgroundFrames
        /// WAL size (frames) past which the writer checkpoints in its own commit.
        public var inlineCheckpointFrames: Int32 = SQLiteCheckpointer.inlineFrames

        /// The defaults: 4 readers, 10 s busy timeout, batches of up to 256 writes, checkpoints as
        /// `SQLiteCheckpointer` says.
        public init() {}
    }

    /// The database file path.
    public let path: String
    /// Values that code above the engine shares between this database's connections.
    public let shared: SQLiteSharedValues
    private let writer: SQLiteWriter
    private let readers: SQLiteReaderPool
    private let checkpointer: SQLiteCheckpointer
    private let deferredWrites = DeferredWriteQueue()
    private let deferredWriteFlushDelay: Duration

    /// Opens (creating if needed) the database at `path` and applies pending `migrations`.
    ///
    /// Creates the parent directory (0700) and the file (0600) when missing, opens and configures
    /// the writer, migrates, then opens the readers and starts the writer thread. `path` must be a file on a local disk
    /// (WAL needs shared memory); `:memory:` is refused.
    /// - Throws: `SQLiteError` if the file cannot be opened, WAL cannot be enabled, migration
    ///   ids are not strictly increasing, the database was migrated by a newer build, or a
    ///   migration fails; `DatabaseFiles.IOError` creating the directory or the file.
    public init(path: String, options: Options = .init(), migrations: [Migration]) throws {
        let migrator = try Migrator(migrations)
        try DatabaseFiles.prepare(path: path)
        let timeout = options.busyTimeoutMilliseconds
        let writerConnection = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: timeout)
        try migrator.migrate(writerConnection)
        let readerConnections = try (0..<max(1, options.readerCount)).map { _ in
            try SQLiteConnection(path: path, role: .reader, busyTimeoutMilliseconds: timeout)
        }
        let checkpointer = SQLiteCheckpointer(
            connection: try SQLiteConnection(path: path, role: .checkpointer, busyTimeoutMilliseconds: timeout),
            backgroundFrames: options.backgroundCheckpointFrames, inlineFrames: options.inlineCheckpointFrames)
        checkpointer.watch(writerConnection)
        let shared = SQLiteSharedValues()
        writerConnection.shared = shared
        readerConnections.forEach { $0.shared = shared }
        self.shared = shared
        self.path = path
        self.deferredWriteFlushDelay = options.deferredWriteFlushDelay
        self.checkpointer = checkpointer
        self.readers = SQLiteReaderPool(readerConnections)
        self.writer = SQLiteWriter(
            connection: writerConnection, maxBatchSize: options.maxBatchSize, checkpointer: checkpointer, deferredWrites: deferredWrites)
    }

    deinit {
        close()
    }

    /// Runs `body` inside its own SAVEPOINT within a batched `BEGIN IMMEDIATE` transaction on the writer thread.
    ///
    /// Returns only after the batch's COMMIT has been fsync'd (`synchronous=FULL`). If `body` throws, only its
    /// savepoint is rolled back and the error is rethrown to this caller; other bodies in the batch still commit.
    /// If the COMMIT itself fails, every caller in the batch gets the error. The task suspends while waiting,
    /// without holding a thread; cancelling it does not withdraw the write.
    /// - Throws: whatever `body` throws, or `SQLiteError` (including after `close()`).
    public func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = WriteJob(
                perform: { connection in
                    do {
                        let value = try connection.inSavepoint { try body(connection) }
                        return { commitError in
                            if let commitError {
                                continuation.resume(throwing: commitError)
                            } else {
                                continuation.resume(returning: value)
                            }
                        }
                    } catch {
                        return { _ in continuation.resume(throwing: error) }
                    }
                },
                fail: { continuation.resume(throwing: $0) }
            )
            writer.submit(job)
        }
    }

    /// Queues a small write to be run by the next write batch, in its transaction, without waiting for it.
    ///
    /// For reads that must leave a trace (the store's read-audit events): the write shares a batch
    /// and its fsync with other writes, and is lost if the process crashes before that batch commits.
    /// A write that throws is kept and retried with the next deferred one.
    public func writeLater(_ write: @escaping DeferredWrite) {
        guard deferredWrites.enqueue(write) else { return }
        let (seconds, attoseconds) = deferredWriteFlushDelay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [writer] in
            writer.submitDeferredFlush()
        }
    }

    /// Deferred writes queued and not yet run; for tests.
    var deferredWriteCount: Int { deferredWrites.count }

    /// Copies the WAL into the database file and cuts the WAL to zero bytes (a `TRUNCATE`
    /// checkpoint on the checkpointer's connection), so that page images of rows since rewritten are
    /// gone from it: after clear data from an older build has been sealed, the WAL must not keep it.
    /// - Returns: whether the checkpoint completed (false when a reader held it back).
    @discardableResult
    public func truncateWAL() async -> Bool {
        await withCheckedContinuation { continuation in
            checkpointer.requestTruncation { continuation.resume(returning: $0) }
        }
    }

    /// Runs `body` on a reader connection (WAL snapshot) from the pool.
    ///
    /// All queries in `body` see one snapshot (a deferred read transaction). When every reader
    /// is busy the task suspends until one is free; `body` then runs on the task's thread.
    /// - Throws: whatever `body` throws, or `SQLiteError` (including after `close()`).
    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        let lease = try await readers.acquire()
        defer { readers.release(lease) }
        return try lease.connection.inReadTransaction { try body(lease.connection) }
    }

    /// Runs one query on a reader connection and returns its first row (nil when it has none),
    /// without `BEGIN` and `COMMIT` around it.
    ///
    /// One statement reads one snapshot by itself: SQLite opens an implicit read transaction when
    /// the statement starts and ends it when the statement is reset, which happens before this
    /// returns. The hot single-row reads (an API key with its merchant, a card) take this path and
    /// save the two statements an explicit transaction adds; a read of more than one statement
    /// that must agree takes ``read(_:)``.
    /// - Throws: `SQLiteError`.
    public func readOne(_ query: SQLiteQuery) async throws -> SQLiteRow? {
        let lease = try await readers.acquire()
        defer { readers.release(lease) }
        return try lease.connection.queryOne(query)
    }

    /// Synchronous `write` for command-line tools and tests: same semantics, the calling thread waits.
    ///
    /// Must not be called from inside a write body (the writer thread would wait for itself);
    /// that misuse throws instead of deadlocking. Do not call it from Swift's cooperative pool.
    /// - Throws: whatever `body` throws, or `SQLiteError`.
    public func writeNow<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        guard !writer.isOnWriterThread else {
            throw SQLiteError.misuse("writeNow called from inside a write body; use the connection it was given")
        }
        return try withoutActuallyEscaping(body) { body in
            let outcome = WriteOutcome<T>()
            let job = WriteJob(
                perform: { connection in
                    let result = Result { try connection.inSavepoint { try body(connection) } }
                    return { commitError in
                        outcome.finish(commitError.map { .failure($0) } ?? result)
                    }
                },
                fail: { outcome.finish(.failure($0)) }
            )
            writer.submit(job)
            return try outcome.wait()
        }
    }

    /// Synchronous `read` for command-line tools and tests: same semantics, the calling thread waits.
    ///
    /// - Throws: whatever `body` throws, or `SQLiteError`.
    public func readNow<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let lease = try readers.acquireNow()
        defer { readers.release(lease) }
        return try lease.connection.inReadTransaction { try body(lease.connection) }
    }

    /// The ids recorded in `schema_migrations`, in increasing order.
    public var appliedMigrations: [Int] {
        get throws {
            try readNow { try Migrator.appliedIDs($0) }
        }
    }

    /// Finishes queued writes, then closes all connections; idempotent. `deinit` also closes.
    ///
    /// Readers in use are closed when their body returns. Later calls throw `SQLiteError`.
    public func close() {
        if deferredWrites.count > 0 {
            writer.submitDeferredFlush()
        }
        writer.close()
        readers.close()
        checkpointer.close()
    }

    /// Background WAL checkpoints run so far; for tests.
    var backgroundCheckpointCount: Int { checkpointer.checkpointCount }

    /// Batches committed by the writer so far; for tests of group commit.
    var commitCount: Int { writer.commitCount }

    /// Writes queued and not yet taken into a batch; for tests of group commit.
    var queuedWriteCount: Int { writer.queuedJobCount }
}

/// Hands a `writeNow` result from the writer thread to the waiting caller.
///
/// `@unchecked Sendable` is safe because `result` is written once before `done` is signalled
/// and read only after waiting on it.
private final class WriteOutcome<T>: @unchecked Sendable {
    private var result: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)

    func finish(_ result: Result<T, any Error>) {
        self.result = result
        done.signal()
    }

    func wait() throws -> T {
        done.wait()
        guard let result else {
            preconditionFailure("signalled without a result")
        }
        return try result.get()
    }
}
