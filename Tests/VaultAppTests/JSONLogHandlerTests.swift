import Foundation
import Logging
import PropertyBased
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

    /// The line as it was written before it was written by hand: the fixed fields and the merged
    /// metadata (the event's over the logger's) in one dictionary, written as canonical JSON.
    static func dictionaryLine(_ handler: JSONLogHandler, label: String, event: LogEvent, time: Date) -> String {
        func json(_ value: Logger.Metadata.Value) -> WebhookValue {
            switch value {
            case .string(let text): .string(text)
            case .stringConvertible(let convertible): .string(convertible.description)
            case .array(let values): .array(values.map(json))
            case .dictionary(let values): .object(values.mapValues(json))
            }
        }
        var object: [String: WebhookValue] = [
            "time": .string(Timestamp.string(time)), "level": .string(event.level.rawValue),
            "logger": .string(label), "message": .string(event.message.description),
        ]
        var merged = handler.metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        for (key, value) in merged where object[key] == nil { object[key] = json(value) }
        return CanonicalJSON.text(.object(object))
    }

    @Test func aLineIsByteForByteTheCanonicalJSONOfItsMergedFields() async {
        let keys = Gen<String?>.element(of: ["time", "level", "logger", "message", "status", "path", "Path", "a", "é", "z\\", "requestId"])
            .map { $0 ?? "a" }
        let texts = Gen<Character?>.element(of: Array("ab\"\\\n\u{07}é/ 9") as [Character]).map { $0 ?? "a" }.string(of: 0...8)
        let fields = zip(keys, texts).array(of: 0...8)
        await propertyCheck(input: fields, fields, texts) { loggerFields, eventFields, message in
            var handler = JSONLogHandler(label: "vault.http", level: .info)
            for (key, value) in loggerFields { handler[metadataKey: key] = .string(value) }
            var metadata: Logger.Metadata = [:]
            for (index, (key, value)) in eventFields.enumerated() {
                metadata[key] = index % 3 == 0 ? .array([.string(value), .dictionary(["k": .string(value)])]) : .string(value)
            }
            let event = Self.event("\(message)", metadata: eventFields.isEmpty ? nil : metadata)
            let time = Date(timeIntervalSince1970: 1_800_000_000.25)
            #expect(handler.line(for: event, at: time) == Self.dictionaryLine(handler, label: "vault.http", event: event, time: time))
        }
    }
}
