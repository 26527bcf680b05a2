import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A sendmail-compatible program and its arguments (configuration `receipts.sendmailCommand`,
/// `/usr/sbin/sendmail -t -i` by default), run without a shell: the configured line is split at
/// spaces and tabs into the program's path and its arguments, with no quoting, globbing or
/// variables, so nothing in a message or an address is ever read by a shell.
///
/// The message goes to the program's standard input; exit status 0 means the program took it.
/// Its output is discarded (a mail program may echo addresses), only the exit status is kept.
public struct SendmailCommand: Sendable, Equatable {
    /// The program's absolute path.
    public let program: String
    /// Its arguments, in order.
    public let arguments: [String]

    /// Why a configured command cannot be used.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        /// The line is empty.
        case empty
        /// The program is not an absolute path: it would depend on the server's `PATH`.
        case notAbsolute(String)
        /// No executable file at the path.
        case notExecutable(String)

        /// A short reason naming the program, for a startup error or a log line.
        public var description: String {
            switch self {
            case .empty: "no sendmail command configured"
            case .notAbsolute(let program): "sendmail command \(program) is not an absolute path"
            case .notExecutable(let program): "sendmail command \(program) is not an executable file"
            }
        }
    }

    /// Splits `line` into program and arguments; refuses an empty line or a relative program.
    /// Whether the program exists is ``checkRunnable()``'s question, asked when receipts are taken.
    public init(_ line: String) throws(Problem) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first else { throw .empty }
        guard first.hasPrefix("/") else { throw .notAbsolute(first) }
        program = first
        arguments = Array(words.dropFirst())
    }

    /// Throws unless the program is an executable file now.
    public func checkRunnable() throws(Problem) {
        guard FileManager.default.isExecutableFile(atPath: program) else { throw .notExecutable(program) }
    }

    /// What became of one message.
    public enum Outcome: Sendable, Equatable {
        /// Exit status 0: the program took the message.
        case accepted
        /// Any other exit status, a signal, or a program that could not be started: the message
        /// was not taken and is to be tried again.
        case refused(String)
    }

    /// Ignores SIGPIPE for the whole process, once: a program that exits without reading its
    /// input would otherwise end the vault with it when the message is written.
    private static let brokenPipesIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Runs the program with `message` on its standard input and waits for it to exit, on a thread
    /// of its own (the wait blocks). Started with `posix_spawn`, not Foundation's `Process`, whose
    /// launch crashed here under concurrent tests. The message (a receipt, a few kilobytes) fits in
    /// the pipe's buffer, so writing it never waits on the program.
    public func send(_ message: String) async -> Outcome {
        Self.brokenPipesIgnored
        let program = program
        let arguments = arguments
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Self.run(program: program, arguments: arguments, input: Array(message.utf8)))
            }
        }
    }

    private static func run(program: String, arguments: [String], input: [UInt8]) -> Outcome {
        var pipeEnds: [Int32] = [0, 0]
        // Close-on-exec: a program started by another thread meanwhile must not inherit the write end
        // (this one would then never see its input end).
        guard pipe(&pipeEnds) == 0 else { return .refused("could not start \(program): no pipe") }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        var spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        // ETXTBSY: the program file is still open for writing somewhere, typically a copy of a
        // descriptor another thread's child inherited for the instant before its own exec (a
        // program written just before, as a freshly installed one). It passes within moments.
        var tries = 0
        while spawned == ETXTBSY && tries < 100 {
            tries += 1
            usleep(10_000)
            spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        }
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            return .refused("could not start \(program)")
        }
        // A program that exits without reading its input closes the pipe: the write then fails
        // (EPIPE, SIGPIPE being ignored) and the exit status says what happened.
        input.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(writeEnd, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
        close(writeEnd)
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        // WIFEXITED: the low seven bits are zero; the exit status is the next byte.
        guard raw & 0x7f == 0 else { return .refused("\(program) ended by signal \(raw & 0x7f)") }
        let status = (raw >> 8) & 0xff
        return status == 0 ? .accepted : .refused("\(program) exited with status \(status)")
    }
}
