import Foundation
import Vault

/// The hosted card field's files, compiled into the binary from `Capture/Assets/`.
enum CaptureAssets {
    /// `/capture/v1.js`: `VaultCapture.mount(element, {clientSecret, style})`.
    static let script = PackageResources.capture_v1_js
    /// `/capture/frame.js`.
    static let frameScript = PackageResources.frame_js
    /// `/capture/frame.css`.
    static let frameStyle = PackageResources.frame_css

    /// The frame page of one session, naming the session and the only origin it takes messages from
    /// (both HTML-escaped, though both are already restricted to characters that need none).
    static func frame(sessionID: String, allowedOrigin: CaptureOrigin) -> [UInt8] {
        let template = String(decoding: PackageResources.frame_html, as: UTF8.self)
        let page = template.replacingOccurrences(of: "{{session}}", with: escaped(sessionID))
            .replacingOccurrences(of: "{{allowedOrigin}}", with: escaped(allowedOrigin.value))
        return Array(page.utf8)
    }

    /// The page answered for an unknown session (framed by nobody).
    static let missingFrame = Array(
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Card details</title></head>
        <body><p>This card form is not available.</p></body></html>
        """.utf8)

    private static func escaped(_ text: String) -> String {
        var output = ""
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }
}
