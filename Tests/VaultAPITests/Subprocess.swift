import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, standard output and error each on a pipe.
///
/// The tests do not use Foundation's `Process`: on Linux (Swift 6.3) its `run()` crashes now and
/// then with a SIGSEGV in `findMaximumOpenFromProcSelfFD()`, a 256-byte over-read of the
/// `/proc/self/fd` entries (swift-corelibs-foundation PR #5472), which took the whole test process
/// down about once in ten full runs here.
///
/// `@unchecked Sendable` is safe: the descriptors and pid are immutable; `exitStatus` is guarded
/// by `lock`.
final class Subprocess: @unchecked Sendable {
    /// The child's process id.
    let pid: pid_t
    /// The read end of the child's standard output.
    let standardOutput: FileHandle
    /// The read end of the child's standard error.
    let standardError: FileHandle
    private let lock = NSLock()
    private var exitStatus: (status: Int32, exited: Bool)?

    /// Pipes and spawns are made under one lock, so no child inherits another's pipe (the pipes are
    /// close-on-exec only once `fcntl` has run).
    private static let spawnLock = NSLock()

    /// Starts `executable` with `arguments` in `directory` (through `/bin/sh -c 'cd ... && exec ...'`),
    /// with exactly `environment`, standard input from `/dev/null`.
    init(executable: String, arguments: [String], environment: [String: String], directory: String? = nil) throws {
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
        standardOutput = FileHandle(fileDescriptor: output.read, closeOnDealloc: true)
        standardError = FileHandle(fileDescriptor: error.read, closeOnDealloc: true)
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Waits for the child; its exit status, or 128 + the signal that ended it.
    @discardableResult
    func waitUntilExit() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus.status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        let result = Self.decode(raw)
        exitStatus = result
        return result.status
    }

    /// True when the child ended by calling `exit` (not by a signal); waits for it.
    var exitedNormally: Bool {
        waitUntilExit()
        return lock.withLock { exitStatus?.exited ?? false }
    }

    /// Whether the child is still running.
    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard exitStatus == nil else { return false }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
        exitStatus = Self.decode(raw)
        return false
    }

    /// Sends SIGTERM.
    func terminate() {
        kill(pid, SIGTERM)
    }

    private static func decode(_ raw: Int32) -> (status: Int32, exited: Bool) {
        let signal = raw & 0x7F
        return signal == 0 ? ((raw >> 8) & 0xFF, true) : (128 + signal, false)
    }
}
