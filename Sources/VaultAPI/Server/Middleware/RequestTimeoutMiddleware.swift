import Foundation
import Hummingbird
import Logging

/// Gives every handler `server.requestTimeoutSeconds`: when a handler runs longer it is cancelled
/// and the client gets a 503 `request_timeout` in the error envelope.
///
/// The handler runs in a child task raced against a timer. Cancellation is cooperative: a handler
/// that finishes anyway (its work could not be interrupted) answers with its own response, since its
/// change happened; one that stops on cancellation answers 503. Mounted inside the idempotency
/// middleware, so a timed-out request releases its Idempotency-Key like any 5xx.
struct RequestTimeoutMiddleware<Context: RequestContext>: RouterMiddleware {
    /// How long a handler may run.
    let timeout: Duration
    /// Waits `timeout` (the shared `RequestDeadlines` watchdog); injected by tests so no test depends on timing.
    let sleep: @Sendable (Duration) async throws -> Void

    init(timeout: Duration, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await RequestDeadlines.shared.wait(for: $0) }) {
        self.timeout = timeout
        self.sleep = sleep
    }

    private enum Outcome: Sendable {
        case response(Response)
        case timedOut
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let timeout = self.timeout
        let sleep = self.sleep
        return try await withoutActuallyEscaping(next) { escapable in
            // Safe to send: Hummingbird's `next` only captures its (Sendable) responder chain, and the
            // task group below awaits the child that calls it before this closure returns.
            nonisolated(unsafe) let handler = escapable
            return try await withThrowingTaskGroup(of: Outcome.self) { group in
                group.addTask { .response(try await handler(request, context)) }
                group.addTask {
                    try await sleep(timeout)
                    return .timedOut
                }
                guard let first = try await group.next() else { throw Self.timeoutError(timeout) }
                group.cancelAll()
                if case .response(let response) = first { return response }
                context.logger.warning("request timed out", metadata: ["timeoutSeconds": "\(timeout.components.seconds)"])
                while let outcome = try? await group.next() {
                    if case .response(let response) = outcome { return response }
                }
                throw Self.timeoutError(timeout)
            }
        }
    }

    static func timeoutError(_ timeout: Duration) -> APIError {
        APIError(
            status: .serviceUnavailable, type: "api_error", code: "request_timeout",
            message: "The request took longer than \(timeout.components.seconds) s and was stopped; retry later.")
    }
}
