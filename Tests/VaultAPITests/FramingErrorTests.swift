import Foundation
import NIOCore
import Testing
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// A client that breaks HTTP/1.1 framing in its body (a chunk size that is not hexadecimal, CR or LF
/// inside a chunk extension) gets a 400 and a closed connection: its mistake is not the server's
/// error, so nothing is logged at error level (any API key could otherwise page the on-call).
@Suite struct FramingErrorTests {
    static func chunked(key: String, chunks: String) -> String {
        "POST /v1/secure-cards HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer \(key)\r\nContent-Type: application/json\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n" + chunks
    }

    @Test(arguments: [
        "zz\r\n{}\r\n0\r\n\r\n", "2;ext=a\rb\r\n{}\r\n0\r\n\r\n", "2;ext=\n\r\n{}\r\n0\r\n\r\n", "-1\r\n{}\r\n0\r\n\r\n",
    ])
    func aMalformedChunkedBodyIsA400AndNoError(chunks: String) async throws {
        let fixture = try await ConnectionAttackTests.fixture { _ in }
        try await fixture.serving { port in
            let connection = try await RawConnection.open(port: port)
            try await connection.send(Self.chunked(key: fixture.adminA, chunks: chunks))
            #expect(await connection.waitForClose(within: ConnectionAttackTests.bound))
            #expect(connection.received.hasPrefix("HTTP/1.1 400"), "\(connection.received.prefix(80))")
            await connection.close()

            // A well-framed body on the next connection is served.
            let good = try await RawConnection.open(port: port)
            let body = #"{"merchantReference": "c1", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230", "holderName": "A B"}, "verify": false}"#
            try await good.send(Self.chunked(key: fixture.adminA, chunks: String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n"))
            #expect(await good.waitForAnswer(within: ConnectionAttackTests.bound))
            #expect(good.received.hasPrefix("HTTP/1.1 201"), "\(good.received.prefix(80))")
            await good.close()
        }
        #expect(!fixture.logText.contains("\"error\""), "logged at error level: \(fixture.logText.suffix(400))")
        #expect(!fixture.logText.contains("unhandled error"))
    }
}
