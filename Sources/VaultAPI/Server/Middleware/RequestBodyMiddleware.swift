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
        let bytes = Array(contentType.utf8)
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        // ASCII lower case; media types are ASCII.
        let mediaType = HeaderBytes.trimmed(bytes[..<end]).map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 0x20 : $0 }
        let application = Array("application/".utf8)
        return mediaType == Array("application/json".utf8)
            || (mediaType.starts(with: application) && mediaType.count > application.count + 5 && mediaType.suffix(5).elementsEqual("+json".utf8))
    }
}
