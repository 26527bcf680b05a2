import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Vault

/// The hosted card field: `/capture/v1.js` (the script a merchant's page includes),
/// `/capture/frame` (the page of the iframe it mounts) and the frame's own script and stylesheet.
/// Compiled into the binary (``CaptureAssets``); no authentication, no third-party code.
///
/// The frame is served only for an existing session, with a `Content-Security-Policy` whose
/// `frame-ancestors` is the session's allowed origin (a page of any other origin cannot frame it),
/// no inline script or style, requests only to the vault itself, and `Referrer-Policy: no-referrer`.
struct CaptureFrameController {
    let sessions: CaptureSessionService

    func addRoutes(to router: RouterGroup<VaultRequestContext>) {
        router.get("capture/v1.js") { _, _ in
            Self.asset(CaptureAssets.script, type: "text/javascript; charset=utf-8", crossOrigin: true)
        }
        router.get("capture/frame.js") { _, _ in
            Self.asset(CaptureAssets.frameScript, type: "text/javascript; charset=utf-8", crossOrigin: false)
        }
        router.get("capture/frame.css") { _, _ in
            Self.asset(CaptureAssets.frameStyle, type: "text/css; charset=utf-8", crossOrigin: false)
        }
        router.get("capture/frame") { request, _ in
            guard let id = request.uri.queryParameters["session"].map(String.init), let origin = try await sessions.frameOrigin(sessionID: id) else {
                return Self.page(CaptureAssets.missingFrame, status: .notFound, frameAncestors: "'none'")
            }
            return Self.page(CaptureAssets.frame(sessionID: id, allowedOrigin: origin), status: .ok, frameAncestors: origin.value)
        }
    }

    /// The frame's policy: its own script, style, requests and images only; framed only by `frameAncestors`.
    static func contentSecurityPolicy(frameAncestors: String) -> String {
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
            + "frame-ancestors \(frameAncestors)"
    }

    private static func page(_ html: [UInt8], status: HTTPResponse.Status, frameAncestors: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentSecurityPolicy] = contentSecurityPolicy(frameAncestors: frameAncestors)
        headers[.referrerPolicy] = "no-referrer"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: html)))
    }

    private static func asset(_ bytes: [UInt8], type: String, crossOrigin: Bool) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.xContentTypeOptions] = "nosniff"
        headers[.referrerPolicy] = "no-referrer"
        headers[.cacheControl] = "public, max-age=300"
        // The merchant's page loads v1.js from another origin; the frame's own files stay the vault's.
        headers[.crossOriginResourcePolicy] = crossOrigin ? "cross-origin" : "same-origin"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let crossOriginResourcePolicy = HTTPField.Name("Cross-Origin-Resource-Policy")!
}
