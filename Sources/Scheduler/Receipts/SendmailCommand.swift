import Foundation

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

    /// Runs the program with `message` on its standard input and waits for it to exit. The
    /// message (a receipt, a few kilobytes) fits in the pipe's buffer, so writing it never waits
    /// on the program.
    public func send(_ message: String) async -> Outcome {
        Self.brokenPipesIgnored
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let status: Int32? = await withCheckedContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(returning: nil)
                return
            }
            // A program that exits without reading its input closes the pipe: the write then fails
            // and the exit status says what happened.
            try? input.fileHandleForWriting.write(contentsOf: Data(message.utf8))
            try? input.fileHandleForWriting.close()
        }
        guard let status else { return .refused("could not start \(program)") }
        return status == 0 ? .accepted : .refused("\(program) exited with status \(status)")
    }
}
