import Foundation
import Hummingbird
import NIOCore

/// Collects request bodies up to the configured limit (413 beyond it) and insists on JSON (415)
/// for any request that carries one, before a handler sees the request.
struct RequestBodyMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post || request.method == .put || request.method == .patch else {
            return try await next(request, context)
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBodyBytes {
            throw APIError.tooLarge(limit: maxBodyBytes)
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw APIError.tooLarge(limit: maxBodyBytes)
        }
        if body.readableBytes > 0 {
            guard Self.isJSON(contentType: request.headers[.contentType] ?? "") else {
                throw APIError.unsupportedMediaType
            }
        }
        return try await next(request, context)
    }

    /// `application/json` or `application/<anything>+json`, in any case, parameters ignored.
    static func isJSON(contentType: String) -> Bool {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let mediaType = contentType.prefix { $0 != ";" }.drop(while: isBlank).reversed().drop(while: isBlank).reversed()
        let lowered = String(mediaType).lowercased()
        return lowered == "application/json" || (lowered.hasPrefix("application/") && lowered.hasSuffix("+json"))
    }
}
