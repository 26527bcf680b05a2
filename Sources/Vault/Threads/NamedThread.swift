import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts the vault's own long-lived threads (the database writer, the checkpointer, the log
/// writer) under names an operator sees in `top -H`, `ps -L` and `perf`.
///
/// Foundation's `Thread.name` does not name the system thread on Linux, and Linux keeps at most 15
/// bytes of a name (a longer one is refused), so the thread names itself when it starts; until it
/// did, every one of these threads showed under the name of the dispatch thread that created it.
public enum NamedThread {
    /// The longest name Linux keeps, in bytes.
    public static let maximumNameLength = 15

    /// Starts a thread named `name` (at most ``maximumNameLength`` bytes) that runs `body`.
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        precondition(name.utf8.count <= maximumNameLength, "thread name longer than \(maximumNameLength) bytes: \(name)")
        let thread = Thread {
            nameCurrent(name)
            body()
        }
        thread.name = name
        thread.start()
    }

    /// The calling thread's system name (for tests).
    public static func currentName() -> String {
        #if os(Linux)
        guard let name = try? String(contentsOfFile: currentNamePath, encoding: .utf8) else { return "" }
        return name.trimmingCharacters(in: .newlines)
        #else
        return Thread.current.name ?? ""
        #endif
    }

    /// Linux's name of the calling thread (`pthread_setname_np` is not visible to Swift through
    /// Glibc, and writes the same file).
    private static let currentNamePath = "/proc/thread-self/comm"

    private static func nameCurrent(_ name: String) {
        #if os(Linux)
        let descriptor = open(currentNamePath, O_WRONLY)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        _ = name.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        #endif
    }
}
