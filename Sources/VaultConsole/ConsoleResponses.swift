import Hummingbird
import HTTPTypes
import NIOCore

/// The headers every console response carries, and the response kinds the routes answer.
enum ConsoleResponses {
    /// No script at all, styles only from the console's own stylesheet, forms posting only back to
    /// the console, never framed. The referrer policy is `same-origin`, not `no-referrer`: under
    /// `no-referrer` a browser sends `Origin: null` with a form post, and the console checks `Origin`.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func securityHeaders(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
    }

    static func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8"]
        securityHeaders(&headers)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// A 303 to `location` (after a form post, so a reload does not post again).
    static func redirect(_ location: String) -> Response {
        var headers: HTTPFields = [.location: location]
        securityHeaders(&headers)
        return Response(status: .seeOther, headers: headers)
    }

    static func stylesheet() -> Response {
        var headers: HTTPFields = [.contentType: "text/css; charset=utf-8"]
        securityHeaders(&headers)
        headers[.cacheControl] = "private, max-age=3600"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: ConsoleStylesheet.css)))
    }
}
