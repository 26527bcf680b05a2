import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import VaultAPI
@testable import VaultAppTestSupport

/// An incoming `X-Request-Id` is kept and echoed when it is 1-128 printable ASCII characters;
/// anything else is replaced by an id of ours.
@Suite struct RequestIDTests {
    private static let name = HTTPField.Name("X-Request-Id")!

    @Test(arguments: ["lb-7f3a9c2e-0001", "a", String(repeating: "x", count: 128), "trace=abc;span=12"])
    func anAcceptableIncomingRequestIDIsEchoed(_ id: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.execute(uri: "/healthz", method: .get, headers: [Self.name: id]) { $0 }
            #expect(response.headers[Self.name] == id)
        }
    }

    @Test(arguments: [String(repeating: "x", count: 129), "has space", "caf\u{E9}", "tab\there", ""])
    func anUnacceptableIncomingRequestIDIsReplacedByOneOfOurs(_ id: String) async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            let response = try await client.execute(uri: "/healthz", method: .get, headers: [Self.name: id]) { $0 }
            let echoed = try #require(response.headers[Self.name])
            #expect(echoed != id)
            #expect(!echoed.isEmpty)
        }
    }

    @Test func theKeptRequestIDIsTheOneInTheAccessLogLine() async throws {
        let fixture = try await APIFixture()
        try await fixture.live { client in
            _ = try await client.execute(uri: "/healthz", method: .get, headers: [Self.name: "oncall-trace-42"]) { $0 }
        }
        let accessLines = fixture.logText.split(separator: "\n").filter { $0.contains(" request ") }
        #expect(accessLines.contains { $0.contains("oncall-trace-42") })
    }
}
