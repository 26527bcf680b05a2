import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import VaultAPI
@testable import VaultAppTestSupport

/// The hosted card field as served: the frame of a session may be framed only by the session's
/// allowed origin and runs no inline script or style; an unknown session's frame by nobody; the
/// script a merchant's page includes is the vault's own, with no third-party code.
@Suite struct CaptureFrameTests {
    static func header(_ response: TestResponse, _ name: String) -> String {
        response.headers[HTTPField.Name(name)!] ?? ""
    }

    @Test func theFrameOfASessionMayBeFramedOnlyByItsAllowedOriginAndRunsNoInlineCode() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let (id, secret) = try await CaptureSessionRoutesTests.create(client, fixture)
            let frame = try await client.send(.get, "/capture/frame?session=\(id)", key: nil)
            #expect(frame.status == .ok)
            let policy = Self.header(frame, "Content-Security-Policy")
            let directives = Set(policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(directives.contains("frame-ancestors https://shop.example"))
            #expect(directives.contains("default-src 'none'"))
            #expect(directives.contains("script-src 'self'"))
            #expect(directives.contains("style-src 'self'"))
            #expect(directives.contains("connect-src 'self'"))
            #expect(!policy.contains("unsafe"))
            #expect(Self.header(frame, "Referrer-Policy") == "no-referrer")
            #expect(Self.header(frame, "Content-Type").hasPrefix("text/html"))
            let html = frame.text
            for label in ["Card number", "Expiry date", "Security code", "Save card", "MM/YY"] {
                #expect(html.contains(label), "\(label)")
            }
            #expect(html.contains(#"<meta name="vault-allowed-origin" content="https://shop.example">"#))
            #expect(!html.contains(secret), "the secret reaches the frame only by postMessage")
            #expect(!html.contains("<style"), "no inline style")
            #expect(!html.contains("style="), "no inline style attribute")
            let scripts = html.components(separatedBy: "<script").dropFirst()
            #expect(scripts.count == 1)
            #expect(scripts.allSatisfy { $0.hasPrefix(#" src="/capture/frame.js""#) && $0.contains("></script>") }, "no inline script")
            #expect(!html.contains(" on"), "no inline event handlers")
        }
    }

    @Test func anUnknownSessionsFrameIsA404NoOriginMayFrame() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            for uri in ["/capture/frame?session=cs_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "/capture/frame?session=sc_x"] {
                let frame = try await client.send(.get, uri, key: nil)
                #expect(frame.status == .notFound)
                #expect(Self.header(frame, "Content-Security-Policy").hasSuffix("frame-ancestors 'none'"))
                #expect(!frame.text.contains("card-number"))
            }
            let missing = try await client.send(.get, "/capture/frame", key: nil)
            #expect(missing.status == .notFound)
            let malformed = try await client.send(.get, "/capture/frame?session=%3Cscript%3E", key: nil)
            #expect(malformed.status == .unprocessableContent || malformed.status == .notFound)
            #expect(!malformed.text.contains("<script>"))
        }
    }

    @Test func theScriptsAndTheStylesheetAreTheVaultsOwn() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let script = try await client.send(.get, "/capture/v1.js", key: nil)
            #expect(script.status == .ok)
            #expect(Self.header(script, "Content-Type").hasPrefix("text/javascript"))
            #expect(Self.header(script, "X-Content-Type-Options") == "nosniff")
            #expect(script.text.contains("VaultCapture"))
            #expect(script.text.contains("event.origin !== vaultOrigin"), "messages are taken from the vault's exact origin only")
            let frameScript = try await client.send(.get, "/capture/frame.js", key: nil)
            #expect(frameScript.text.contains("event.origin !== allowedOrigin"), "the frame takes messages from the allowed origin only")
            let style = try await client.send(.get, "/capture/frame.css", key: nil)
            #expect(Self.header(style, "Content-Type").hasPrefix("text/css"))
            for asset in [script, frameScript, style] {
                #expect(!asset.text.contains("https://"), "no third-party code or resource")
                #expect(!asset.text.contains("import("), "nothing loaded at run time")
            }
        }
    }
}
