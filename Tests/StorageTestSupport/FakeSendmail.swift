public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes an executable file through a close-on-exec descriptor: a program another test starts
/// meanwhile must not inherit it open for writing, or running this one fails with ETXTBSY ("text
/// file busy") for as long as that program lives (Foundation's writers do not set O_CLOEXEC).
public enum ExecutableFile {
    /// Creates `path` (which must not exist) with `text`, mode 0755.
    public static func write(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }
}

/// A sendmail-compatible program for tests, in a temporary directory of its own: it keeps each
/// message it reads as a file of `outbox` and exits 0, or, while ``refuse(status:)`` is in force,
/// reads the message, keeps nothing and exits with that status (as a mail program that cannot
/// take a message does).
public struct FakeSendmail: Sendable {
    /// Its directory (`sendmail`, `outbox/`, `exit-status`).
    public let directory: URL

    /// Writes the program into a new directory under `parent` (the temporary directory by default).
    public init(in parent: String = NSTemporaryDirectory()) throws {
        directory = URL(fileURLWithPath: parent).appendingPathComponent("fake-sendmail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("outbox"), withIntermediateDirectories: true)
        let script = """
            #!/bin/sh
            status=0
            if [ -f "\(directory.path)/exit-status" ]; then status=$(cat "\(directory.path)/exit-status"); fi
            if [ "$status" != 0 ]; then cat > /dev/null; exit "$status"; fi
            kept=$(mktemp "\(directory.path)/outbox/mail-XXXXXXXX")
            cat > "$kept"

            """
        try ExecutableFile.write(script, to: program)
    }

    /// The program's path.
    public var program: String { directory.appendingPathComponent("sendmail").path }

    /// The configuration line: the program with `-t -i`.
    public var command: String { program + " -t -i" }

    /// From now on every message is refused with exit status `status`.
    public func refuse(status: Int) throws {
        try Data("\(status)".utf8).write(to: directory.appendingPathComponent("exit-status"))
    }

    /// From now on every message is taken.
    public func accept() throws {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("exit-status"))
    }

    /// The messages taken so far, in no particular order.
    public func messages() throws -> [String] {
        let outbox = directory.appendingPathComponent("outbox")
        return try FileManager.default.contentsOfDirectory(atPath: outbox.path).filter { $0.hasPrefix("mail-") }.sorted()
            .map { try String(contentsOf: outbox.appendingPathComponent($0), encoding: .utf8) }
    }

    /// Removes the directory.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
