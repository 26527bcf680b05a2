import Foundation
import Vault

/// A response body written by hand, byte for byte what `JSONCoding.encoder` writes for it (keys
/// sorted by their UTF-8 bytes, instants as `Timestamp` strings): for the routes on every
/// portal's hot path, where `JSONEncoder`'s generic containers were a tenth of the server's CPU.
/// A property test compares each conformer's bytes with `JSONEncoder`'s.
protocol HandWrittenJSON: Encodable {
    /// Writes the members; callers give them in sorted key order.
    func writeMembers(_ members: inout JSONMembers)
}

extension HandWrittenJSON {
    /// The whole object's bytes.
    var jsonBytes: [UInt8] {
        var members = JSONMembers()
        writeMembers(&members)
        return members.finished()
    }
}

/// Writes one JSON object's members in the order they are given, into one growing buffer.
struct JSONMembers {
    private var output: [UInt8]
    private var count = 0

    /// An object being written, `{` already out.
    init(capacity: Int = 1024) {
        output = []
        output.reserveCapacity(capacity)
        output.append(UInt8(ascii: "{"))
    }

    private init(continuing buffer: [UInt8]) {
        output = buffer
        output.append(UInt8(ascii: "{"))
    }

    /// Closes the object and gives back its bytes.
    consuming func finished() -> [UInt8] {
        output.append(UInt8(ascii: "}"))
        return output
    }

    private mutating func key(_ key: String) {
        if count > 0 { output.append(UInt8(ascii: ",")) }
        count += 1
        CanonicalJSON.append(string: key, to: &output)
        output.append(UInt8(ascii: ":"))
    }

    private mutating func null() {
        output.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
    }

    /// `"key":"value"`, or `"key":null`.
    mutating func string(_ name: String, _ value: String?) {
        key(name)
        if let value { CanonicalJSON.append(string: value, to: &output) } else { null() }
    }

    /// `"key":"value"`, or nothing when `value` is nil (`encodeIfPresent`).
    mutating func stringIfPresent(_ name: String, _ value: String?) {
        guard let value else { return }
        string(name, value)
    }

    /// `"key":123`.
    mutating func int(_ name: String, _ value: some BinaryInteger) {
        key(name)
        output.append(contentsOf: String(value).utf8)
    }

    /// `"key":123`, or `"key":null` (an `@ExplicitNull` member).
    mutating func intOrNull(_ name: String, _ value: (some BinaryInteger)?) {
        guard let value else {
            key(name)
            return null()
        }
        int(name, value)
    }

    /// `"key":123`, or nothing when `value` is nil.
    mutating func intIfPresent(_ name: String, _ value: (some BinaryInteger)?) {
        guard let value else { return }
        int(name, value)
    }

    /// `"key":"2026-11-22T07:30:00.000Z"`, or nothing when `value` is nil.
    mutating func instantIfPresent(_ name: String, _ value: Date?) {
        guard let value else { return }
        instant(name, value)
    }

    /// `"key":"2026-11-22T07:30:00.000Z"`, or `"key":null`.
    mutating func instant(_ name: String, _ value: Date?) {
        string(name, value.map(Timestamp.string))
    }

    /// `"key":["a","b"]`, or nothing when `values` is nil.
    mutating func stringsIfPresent(_ name: String, _ values: [String]?) {
        guard let values else { return }
        strings(name, values)
    }

    /// `"key":["a","b"]`.
    mutating func strings(_ name: String, _ values: [String]) {
        key(name)
        output.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            CanonicalJSON.append(string: value, to: &output)
        }
        output.append(UInt8(ascii: "]"))
    }

    /// `"key":{...}` written by `body`, or `"key":null`.
    mutating func object<Value>(_ name: String, _ value: Value?, _ body: (Value, inout JSONMembers) -> Void) {
        key(name)
        guard let value else { return null() }
        var inner = JSONMembers(continuing: take())
        body(value, &inner)
        output = inner.finished()
    }

    /// `"key":[{...},...]`, or nothing when `values` is nil.
    mutating func objectsIfPresent<Value>(_ name: String, _ values: [Value]?, _ body: (Value, inout JSONMembers) -> Void) {
        guard let values else { return }
        objects(name, values, body)
    }

    /// `"key":[{...},...]`, each element written by `body`.
    mutating func objects<Value>(_ name: String, _ values: [Value], _ body: (Value, inout JSONMembers) -> Void) {
        key(name)
        output.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            var inner = JSONMembers(continuing: take())
            body(value, &inner)
            output = inner.finished()
        }
        output.append(UInt8(ascii: "]"))
    }

    private mutating func take() -> [UInt8] {
        var buffer: [UInt8] = []
        swap(&buffer, &output)
        return buffer
    }
}
