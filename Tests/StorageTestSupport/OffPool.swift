import Foundation

/// Blocking work of a test (waiting for a child process, a shell script, a pipe) run on a thread of
/// its own while the calling task awaits.
///
/// Swift's cooperative pool has one thread per core, two on CI; a test blocking one of them for
/// seconds (starting a PostgreSQL cluster, waiting for `vault` to exit) stalled every test server in
/// the process: accepts, header timeouts, connection caps and recovery searches all missed their
/// 10 s bounds at once. Every such wait in the tests goes through here.
public enum OffPool {
    /// Runs `work` on a new thread; resumes with its result.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = "test blocking work"
            thread.start()
        }
    }

    /// Runs throwing `work` on a new thread; resumes with its result or rethrows its error.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await run { Result { try work() } }.get()
    }
}
