import Foundation
import Metrics
import Synchronization
import Vault
#if canImport(Glibc)
import Glibc
#endif

/// Where log lines go: standard error, written by one background thread that takes every line
/// queued since its last write in a single `write(2)`.
///
/// The access log writes a line per request; one system call (and a lock on the descriptor) per
/// line was a tenth of the server's CPU under load. Under load lines now leave in batches; when
/// idle a line is written as soon as the thread wakes (a warning or error wakes it at once).
/// Whatever is queued is written at process exit, so only a crash loses lines, and only those of
/// the last moments.
///
/// **Logging never blocks a request.** If whatever reads standard error stalls (a full pipe, a
/// stopped collector), only the writing thread waits; the queue is bounded (`queueLimit`), and a
/// line that does not fit is dropped and counted (``droppedLineCount``, exported as
/// `vault_log_lines_dropped_total`) instead of making the request that logs it wait. A line is
/// queued whole or not at all, so lines stay whole and in order.
///
/// The exit's write gives up after `exitFlushLimit` without progress: a reader of standard error
/// that stopped reading must not keep a stopped server from exiting. Its lines are lost then.
///
/// `@unchecked Sendable` is safe: `pending`, `flusherWaiting` and `dropped` are only touched with
/// `condition` locked, and `writeLock` serialises the writes themselves.
///
/// Lock order: `writeLock`, then `condition`.
final class LogOutput: @unchecked Sendable {
    /// The process's standard error, written out at exit too.
    static let standardError: LogOutput = {
        let output = LogOutput(descriptor: STDERR_FILENO)
        atexit { _ = LogOutput.standardError.flush(givingUpAfter: LogOutput.exitFlushLimit) }
        return output
    }()

    /// How long the write at exit may wait for the reader of standard error.
    static let exitFlushLimit: Duration = .seconds(5)

    private let descriptor: Int32
    private let queueLimit: Int
    private let condition = NSCondition()
    private let writeLock = NSLock()
    private var pending: [UInt8] = []
    private var flusherWaiting = false
    private var dropped = 0
    private let droppedCounter = Mutex<Counter?>(nil)

    /// An output to `descriptor`, with its own writing thread (which lives as long as the process);
    /// at most `queueLimit` bytes wait for it, lines beyond are dropped and counted.
    init(descriptor: Int32, queueLimit: Int = 4 << 20) {
        self.descriptor = descriptor
        self.queueLimit = queueLimit
        pending.reserveCapacity(64 * 1024)
        NamedThread.start("vault-log") { [self] in drainForever() }
    }

    /// Queues `line` (which ends with a newline), or drops and counts it when the queue is full;
    /// with `urgent` (warnings and errors), wakes the writing thread at once. Never waits for the
    /// reader of the descriptor.
    func write(_ line: some Collection<UInt8>, urgent: Bool) {
        condition.lock()
        guard pending.count + line.count <= queueLimit || pending.isEmpty else {
            dropped += 1
            condition.unlock()
            countDrop()
            return
        }
        pending.append(contentsOf: line)
        if flusherWaiting {
            flusherWaiting = false
            condition.signal()
        }
        condition.unlock()
    }

    /// Lines dropped because the queue was full (the reader of the descriptor stalled).
    var droppedLineCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return dropped
    }

    private func countDrop() {
        let counter = droppedCounter.withLock { counter in
            if let counter { return counter }
            let made = Counter(label: "vault_log_lines_dropped_total")
            counter = made
            return made
        }
        counter.increment()
    }

    /// Writes everything queued so far before returning.
    func flush() {
        writeLock.lock()
        defer { writeLock.unlock() }
        condition.lock()
        let batch = takePending()
        condition.unlock()
        writeAll(batch)
    }

    /// Writes everything queued so far, unless the descriptor takes nothing for `limit` (or
    /// another write holds it that long, blocked on the same reader): then returns false, with the
    /// bytes it could not write dropped. For process exit, which must end even when nobody reads.
    func flush(givingUpAfter limit: Duration) -> Bool {
        guard writeLock.lock(before: Date().addingTimeInterval(limit / .seconds(1))) else { return false }
        defer { writeLock.unlock() }
        condition.lock()
        let batch = takePending()
        condition.unlock()
        return writeAll(batch, stallLimit: limit)
    }

    /// Bytes queued and not yet taken by a write (for tests).
    var queuedByteCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return pending.count
    }

    private func drainForever() {
        while true {
            condition.lock()
            while pending.isEmpty {
                flusherWaiting = true
                condition.wait()
            }
            condition.unlock()
            flush()
        }
    }

    /// The queued bytes, leaving an empty buffer of the same capacity. Call with `condition` locked.
    private func takePending() -> [UInt8] {
        var batch: [UInt8] = []
        batch.reserveCapacity(min(pending.capacity, 64 * 1024))
        swap(&batch, &pending)
        condition.broadcast()
        return batch
    }

    /// Writes `bytes`; with `stallLimit`, waits for room before each write of at most `PIPE_BUF`
    /// bytes (which a pipe with room takes without blocking) and gives up when none comes within
    /// the limit. False when bytes were left unwritten.
    @discardableResult
    private func writeAll(_ bytes: [UInt8], stallLimit: Duration? = nil) -> Bool {
        guard !bytes.isEmpty else { return true }
        return bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                var length = buffer.count - offset
                if let stallLimit {
                    var room = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    let ready = poll(&room, 1, Int32(stallLimit / .milliseconds(1)))
                    if ready < 0 && errno == EINTR { continue }
                    guard ready > 0, room.revents & Int16(POLLOUT) != 0 else { return false }
                    length = min(length, Int(PIPE_BUF))
                }
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, length)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }
}
