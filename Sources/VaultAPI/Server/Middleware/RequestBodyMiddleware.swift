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
            let contentType = request.headers[.contentType]?.lowercased() ?? ""
            let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json")) else {
                throw APIError.unsupportedMediaType
            }
        }
        return try await next(request, context)
    }
}
