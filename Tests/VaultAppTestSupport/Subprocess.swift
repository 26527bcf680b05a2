import Foundation
import StorageTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, standard output and error each on a pipe that a
/// thread of its own reads to the end from the start.
///
/// Nothing the child writes can fill a pipe nobody reads: a `vault serve` whose access log went
/// to an unread standard error blocked in `write(2)` once 64 KiB were queued, and then could not
/// exit (its exit flushes the log), so the test waiting for it hung the whole run. Reading one
/// pipe to its end before the other had the same hazard for a child that fills the second first.
///
/// The tests do not use Foundation's `Process`: on Linux (Swift 6.3) its `run()` crashes now and
/// then with a SIGSEGV in `findMaximumOpenFromProcSelfFD()`, a 256-byte over-read of the
/// `/proc/self/fd` entries (swift-corelibs-foundation PR #5472), which took the whole test process
/// down about once in ten full runs here.
///
/// Every child is reaped by a thread of its own the moment it exits, whatever its test does: a
/// zombie left by a test that failed before waiting made Swift Testing's exit-test monitor (which
/// waits for any child without reaping the ones it does not own) spin on it, and the exit test it
/// was there for never ended.
///
/// `@unchecked Sendable` is safe: the pid and the captures are immutable (the captures lock their
/// own state); `exitStatus` is guarded by `exit`.
final class Subprocess: @unchecked Sendable {
    /// The child's process id.
    let pid: pid_t
    /// What the child wrote to its standard output so far.
    let standardOutput: Capture
    /// What the child wrote to its standard error so far.
    let standardError: Capture
    private let exit = NSCondition()
    private var exitStatus: (status: Int32, exited: Bool)?

    /// Pipes and spawns are made under one lock, so no child inherits another's pipe (the pipes are
    /// close-on-exec only once `fcntl` has run).
    private static let spawnLock = NSLock()

    /// Starts `executable` with `arguments` in `directory` (through `/bin/sh -c 'cd ... && exec ...'`),
    /// with exactly `environment`, standard input from `/dev/null`. With `unreadStandardError` the
    /// child's standard error is a pipe nobody reads (a stalled log collector), for the tests that
    /// attack that.
    init(
        executable: String, arguments: [String], environment: [String: String], directory: String? = nil,
        unreadStandardError: Bool = false
    ) throws {
        var argv = [executable] + arguments
        if let directory {
            argv = ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, directory] + argv
        }
        Self.spawnLock.lock()
        defer { Self.spawnLock.unlock() }
        let output = try Self.pipe()
        let error = try Self.pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, error.write, 2)
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, argv[0], &actions, nil, cArguments, cEnvironment)
        close(output.write)
        close(error.write)
        guard code == 0 else {
            close(output.read)
            close(error.read)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EINVAL)
        }
        self.pid = pid
        standardOutput = Capture(descriptor: output.read)
        standardError = Capture(descriptor: error.read, reads: !unreadStandardError)
        let child = pid
        let reaper = Thread { [self] in
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) == -1 && errno == EINTR {}
            exit.lock()
            exitStatus = Self.decode(raw)
            exit.broadcast()
            exit.unlock()
        }
        reaper.name = "subprocess reaper"
        reaper.start()
    }

    /// Waits for the child and for the ends of both its outputs, on a thread of its own.
    func finish() async -> (status: Int32, standardOutput: String, standardError: String) {
        await Self.offPool {
            let output = self.standardOutput.readToEndBlocking()
            let errors = self.standardError.readToEndBlocking()
            return (self.waitUntilExit(), output, errors)
        }
    }

    /// Every wait for a child (its exit, the end or a line of its output) runs off Swift's
    /// cooperative pool (see `OffPool`).
    static func offPool<T: Sendable>(_ wait: @escaping @Sendable () -> T) async -> T {
        await OffPool.run(wait)
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Waits, off the cooperative pool, for the child; its exit status, or 128 + the signal that ended it.
    @discardableResult
    func exited() async -> Int32 {
        await Self.offPool { self.waitUntilExit() }
    }

    /// Blocks the calling thread until the child exits; only for threads of the tests' own (async
    /// code uses ``exited()``).
    @available(*, noasync, message: "use exited(): a blocked cooperative thread stalls every test server")
    @discardableResult
    func waitUntilExit() -> Int32 {
        exit.lock()
        defer { exit.unlock() }
        while exitStatus == nil { exit.wait() }
        return exitStatus?.status ?? -1
    }

    /// True when the child ended by calling `exit` (not by a signal); waits for it.
    var exitedNormally: Bool {
        get async {
            await exited()
            return exitedByCalling
        }
    }

    private var exitedByCalling: Bool {
        exit.lock()
        defer { exit.unlock() }
        return exitStatus?.exited ?? false
    }

    /// Whether the child is still running.
    var isRunning: Bool {
        exit.lock()
        defer { exit.unlock() }
        return exitStatus == nil
    }

    /// Sends SIGTERM.
    func terminate() {
        kill(pid, SIGTERM)
    }

    /// Sends SIGTERM to a child still running, without waiting (for `defer` blocks, which cannot
    /// await; the reaper thread collects it).
    func terminateAndReap() {
        guard isRunning else { return }
        terminate()
    }

    /// Sends SIGKILL to a child still running and waits for its reaper: for `defer` blocks, which
    /// cannot await (a killed child ends at once, so the calling thread waits only for the kernel).
    func killAndReap() {
        guard isRunning else { return }
        kill(pid, SIGKILL)
        exit.lock()
        defer { exit.unlock() }
        while exitStatus == nil { exit.wait() }
    }

    private static func decode(_ raw: Int32) -> (status: Int32, exited: Bool) {
        let signal = raw & 0x7F
        return signal == 0 ? ((raw >> 8) & 0xFF, true) : (128 + signal, false)
    }
}

extension Subprocess {
    /// The bytes of one of the child's outputs, read by a thread of its own until the pipe ends
    /// (the child and every process that inherited the pipe closed it).
    ///
    /// `@unchecked Sendable` is safe: `bytes` and `ended` are only touched with `condition` locked.
    final class Capture: @unchecked Sendable {
        private let condition = NSCondition()
        private var bytes = Data()
        private var ended = false
        /// The descriptor held unread (closed with the capture).
        private let unread: Int32?

        init(descriptor: Int32, reads: Bool = true) {
            guard reads else {
                unread = descriptor
                ended = true
                return
            }
            unread = nil
            let thread = Thread { [self] in
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    condition.lock()
                    if count > 0 {
                        bytes.append(contentsOf: buffer[0..<count])
                    } else {
                        ended = true
                    }
                    condition.broadcast()
                    condition.unlock()
                    if count <= 0 { break }
                }
                close(descriptor)
            }
            thread.name = "subprocess output"
            thread.start()
        }

        deinit {
            if let unread { close(unread) }
        }

        /// Everything written so far, as text.
        var text: String {
            condition.lock()
            defer { condition.unlock() }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// Waits, off the cooperative pool, until the output ends; everything written, as text.
        func readToEnd() async -> String {
            await Subprocess.offPool { self.readToEndBlocking() }
        }

        /// Blocks the calling thread until the output ends.
        @available(*, noasync, message: "use readToEnd() async")
        func readToEndBlocking() -> String {
            condition.lock()
            defer { condition.unlock() }
            while !ended { condition.wait() }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// Waits, off the cooperative pool, until the text written so far satisfies `found` (its
        /// answer returned), the output ends, or `deadline` passes (nil then).
        func wait<T: Sendable>(until deadline: Date, for found: @escaping @Sendable (String) -> T?) async -> T? {
            await Subprocess.offPool { self.waitBlocking(until: deadline, for: found) }
        }

        @available(*, noasync, message: "use wait(until:for:) async")
        private func waitBlocking<T>(until deadline: Date, for found: (String) -> T?) -> T? {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let answer = found(String(decoding: bytes, as: UTF8.self)) { return answer }
                if ended || !condition.wait(until: deadline) { return nil }
            }
        }
    }
}
