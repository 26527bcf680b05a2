import Foundation
import Logging
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp

/// Log lines are one JSON object each, with the fixed fields and the metadata, keys sorted.
@Suite struct JSONLogHandlerTests {
    static func event(_ message: Logger.Message, metadata: Logger.Metadata?) -> LogEvent {
        LogEvent(level: .warning, message: message, metadata: metadata, source: nil, file: "f.swift", function: "f()", line: 1)
    }

    @Test func aLineIsSortedJSONWithTheFixedFieldsAndTheMergedMetadata() throws {
        var handler = JSONLogHandler(label: "vault.http", level: .info)
        handler[metadataKey: "requestId"] = "req_1"
        handler[metadataKey: "status"] = "200"
        let time = Timestamp.parse("2027-01-02T03:04:05.678Z")!
        let line = handler.line(
            for: Self.event("request \"done\"\n", metadata: ["status": "402", "path": "/v1/x", "tags": ["a", "b"], "nested": ["k": "v"]]), at: time)
        #expect(line == #"{"level":"warning","logger":"vault.http","message":"request \"done\"\n","nested":{"k":"v"},"path":"/v1/x","#
            + #""requestId":"req_1","status":"402","tags":["a","b"],"time":"2027-01-02T03:04:05.678Z"}"#)
        let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(parsed?["status"] as? String == "402", "the event's metadata wins over the logger's")
    }

    @Test func metadataCannotOverwriteTheFixedFields() {
        let handler = JSONLogHandler(label: "vault.http")
        let line = handler.line(for: Self.event("real", metadata: ["message": "forged", "level": "forged"]), at: Date(timeIntervalSince1970: 0))
        #expect(line.contains(#""message":"real""#) && line.contains(#""level":"warning""#) && !line.contains("forged"))
    }
}
