import Testing
import Vault

/// The origin a capture session allows to frame the hosted card field: only what a browser sends
/// as an origin, https (http on loopback), so it can go as it is into a CSP header and compare
/// equal to `MessageEvent.origin`.
@Suite struct CaptureOriginTests {
    @Test(arguments: [
        ("https://shop.example", "https://shop.example"),
        ("HTTPS://Shop.Example", "https://shop.example"),
        ("https://shop.example:8443", "https://shop.example:8443"),
        ("https://a-b.c-d.example", "https://a-b.c-d.example"),
        ("http://localhost:5173", "http://localhost:5173"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("http://[::1]:8000", "http://[::1]:8000"),
    ])
    func anOriginIsTakenInTheFormABrowserSends(_ given: String, _ stored: String) throws {
        #expect(try CaptureOrigin(validating: given).value == stored)
    }

    @Test(arguments: [
        "", "*", "null", "shop.example", "https://", "http://shop.example", "https://shop.example/", "https://shop.example/checkout",
        "https://shop.example?x=1", "https://user@shop.example", "https://shop.example:443", "https://shop.example:0", "https://shop.example:99999",
        "https://shop.example:08443", "https://shop.example; script-src *", "https://shop.example https://evil.example", "https://-shop.example",
        "https://shop..example", "https://*.shop.example", "javascript:alert(1)", "https://shop.example\"", "ftp://shop.example",
        "http://127.0.0.1.evil.example", "http://127.a.b.c", "https://[::1", "https://[::2]",
    ])
    func anythingElseIsRefusedNamingAllowedOrigin(_ given: String) {
        #expect(throws: CardDataError.self) { try CaptureOrigin(validating: given) }
        #expect((try? CaptureOrigin(validating: given)) == nil)
    }
}
