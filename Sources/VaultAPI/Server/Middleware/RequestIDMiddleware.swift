import HTTPTypes
import Hummingbird
import Logging

/// Keeps the caller's `X-Request-Id` as the request's id, so one id follows a request through a
/// load balancer, the client's logs and ours; `ErrorEnvelopeMiddleware` echoes it and every log
/// line of the request carries it. An id that is not 1-128 printable ASCII characters (no space,
/// no control character) is replaced by one of ours, never logged or echoed as sent.
struct RequestIDMiddleware<Context: VaultContext>: RouterMiddleware {
    /// The longest incoming id kept.
    static var maximumLength: Int { 128 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let incoming = request.headers[.requestID], Self.isAcceptable(incoming) else {
            return try await next(request, context)
        }
        var context = context
        context.logger[metadataKey: "hb.request.id"] = .string(incoming)
        return try await next(request, context)
    }

    /// Whether `id` may be kept: 1 to ``maximumLength`` bytes, each printable ASCII other than space.
    static func isAcceptable(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= maximumLength && bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
