import Foundation

/// A reader connection handed out for one `read` body.
///
/// `@unchecked Sendable` is safe because the pool gives a connection to one holder at a time
/// and takes it back only when that holder is done with it.
struct ReaderLease: @unchecked Sendable {
    /// The leased connection.
    let connection: SQLiteConnection
}

/// A fixed set of `query_only` reader connections.
///
/// When every reader is busy, async callers suspend (without blocking a thread) and
/// synchronous callers wait on a condition; neither spins.
///
/// `@unchecked Sendable` is safe because `idle`, `waiters` and `isClosed` are only touched
/// with `condition` locked.
final class SQLiteReaderPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [SQLiteConnection]
    private var waiters: [CheckedContinuation<ReaderLease?, Never>] = []
    private var isClosed = false

    /// A pool over already configured reader connections.
    init(_ connections: [SQLiteConnection]) {
        precondition(!connections.isEmpty, "at least one reader connection")
        self.idle = connections
    }

    /// Takes a reader, blocking the calling thread while all are busy.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) once the pool is closed.
    func acquireNow() throws -> ReaderLease {
        condition.lock()
        defer { condition.unlock() }
        while idle.isEmpty && !isClosed {
            condition.wait()
        }
        guard !isClosed, let connection = idle.popLast() else {
            throw SQLiteError.misuse("the database is closed")
        }
        return ReaderLease(connection: connection)
    }

    /// Takes a reader, suspending the task while all are busy.
    ///
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) once the pool is closed.
    func acquire() async throws -> ReaderLease {
        if let lease = try acquireIfIdle() {
            return lease
        }
        let lease = await withCheckedContinuation { (continuation: CheckedContinuation<ReaderLease?, Never>) in
            condition.lock()
            if isClosed {
                condition.unlock()
                continuation.resume(returning: nil)
            } else if let connection = idle.popLast() {
                condition.unlock()
                continuation.resume(returning: ReaderLease(connection: connection))
            } else {
                waiters.append(continuation)
                condition.unlock()
            }
        }
        guard let lease else {
            throw SQLiteError.misuse("the database is closed")
        }
        return lease
    }

    private func acquireIfIdle() throws -> ReaderLease? {
        condition.lock()
        defer { condition.unlock() }
        guard !isClosed else {
            throw SQLiteError.misuse("the database is closed")
        }
        return idle.popLast().map(ReaderLease.init(connection:))
    }

    /// Returns a reader: to the longest-waiting task, else to the idle set; closes it if the pool is closed.
    func release(_ lease: ReaderLease) {
        condition.lock()
        if isClosed {
            condition.unlock()
            lease.connection.close()
        } else if !waiters.isEmpty {
            let waiter = waiters.removeFirst()
            condition.unlock()
            waiter.resume(returning: lease)
        } else {
            idle.append(lease.connection)
            condition.signal()
            condition.unlock()
        }
    }

    /// Closes idle readers now and leased ones when they come back; waiting callers fail. Idempotent.
    func close() {
        condition.lock()
        isClosed = true
        let connections = idle
        idle.removeAll()
        let pending = waiters
        waiters.removeAll()
        condition.broadcast()
        condition.unlock()
        connections.forEach { $0.close() }
        pending.forEach { $0.resume(returning: nil) }
    }
}
