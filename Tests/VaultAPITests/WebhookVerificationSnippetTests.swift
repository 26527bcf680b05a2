import Foundation
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// README documents the webhook secret's encoding (base64, decoded before the
/// HMAC) with a verification snippet. The snippet is taken from README and run with python3 against
/// a signature made by the vault: it must accept it, and refuse a tampered body or the base64 text
/// used as the key.
@Suite struct WebhookVerificationSnippetTests {
    static func snippet() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- webhook-verification-snippet -->"), "README has no verification snippet")
        let start = try #require(readme.range(of: "```python\n", range: marker.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        // The block is indented under a list item: drop the common indentation.
        return readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : String($0) }.joined(separator: "\n")
    }

    @Test func theReadmeSnippetVerifiesARealSignatureAndOnlyWithTheDecodedSecret() async throws {
        let python = ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let snippet = try Self.snippet()
        #expect(snippet.contains("base64.b64decode"))
        guard let python else { return }

        let secret = RandomBytes.make(32)
        let body = #"{"id":"evt_1","type":"transaction.approved","data":{"amount":1250}}"#
        let timestamp = Int64(Date().timeIntervalSince1970)
        let header = WebhookSignature.header(body: Array(body.utf8), timestamp: timestamp, key: try SecureBytes(copying: secret))
        let secretText = Encoding.base64(secret)
        let script = snippet + """

            import sys
            secret, header, body = sys.argv[1], sys.argv[2], sys.argv[3].encode()
            raw_key_as_text = base64.b64encode(secret.encode()).decode()
            print(verify(secret, header, body), verify(secret, header, body + b" "), verify(raw_key_as_text, header, body))
            """
        let directory = TemporaryDirectory()
        try script.write(toFile: directory.file("verify.py"), atomically: true, encoding: .utf8)
        let process = try Subprocess(
            executable: python, arguments: [directory.file("verify.py"), secretText, header, body],
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path])
        let (status, output, errors) = await process.finish()
        #expect(status == 0, "\(errors)")
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "True False False", "\(output) \(errors)")
    }
}
