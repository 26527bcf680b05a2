import Foundation

/// The canonical JSON text of audit details and webhook bodies: keys sorted by their UTF-8
/// bytes, no insignificant whitespace, slashes not escaped, and only `"`, `\` and control
/// characters escaped — byte for byte what `JSONEncoder` writes with `.sortedKeys` and
/// `.withoutEscapingSlashes` for these values (a test compares the two).
///
/// Written by hand because it runs inside the database writer for every charge outcome (an audit
/// event and a webhook event each): `JSONEncoder`'s generic machinery cost more there than the SQL.
public enum CanonicalJSON {
    /// `{"key":"value",...}` for a flat map of strings.
    public static func text(_ object: [String: String]) -> String {
        text(.object(object.mapValues(WebhookValue.string)))
    }

    /// The text of any webhook value.
    public static func text(_ value: WebhookValue) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        append(value, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the canonical text of `value` to `output` (for callers that want bytes, not a `String`).
    public static func append(_ value: WebhookValue, to output: inout [UInt8]) {
        switch value {
        case .string(let text):
            append(string: text, to: &output)
        case .int(let number):
            output.append(contentsOf: String(number).utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null:
            output.append(contentsOf: "null".utf8)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            var index = 0
            while index < items.count {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                append(items[index], to: &output)
                index += 1
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            let keys = sortedKeys(object)
            var index = 0
            while index < keys.count {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                let key = keys[index]
                append(string: key, to: &output)
                output.append(UInt8(ascii: ":"))
                if let value = object[key] { append(value, to: &output) }
                index += 1
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// The keys of `object` in order by UTF-8 bytes (what `JSONEncoder`'s `.sortedKeys` does).
    ///
    /// An insertion sort of the keys alone for the small objects of audit details and webhook
    /// bodies (some twenty keys at most): cheaper than sorting key-value pairs with the
    /// standard library's generic sort, which the unoptimized build runs through runtime
    /// metadata for every comparison and move. Keys are unique, so any correct sort gives this order.
    static func sortedKeys<Value>(_ object: [String: Value]) -> [String] {
        var keys = Array(object.keys)
        guard keys.count <= 32 else { return keys.sorted(by: precedes) }
        var sortedEnd = 1
        while sortedEnd < keys.count {
            let key = keys[sortedEnd]
            var slot = sortedEnd
            while slot > 0, precedes(key, keys[slot - 1]) {
                keys[slot] = keys[slot - 1]
                slot -= 1
            }
            keys[slot] = key
            sortedEnd += 1
        }
        return keys
    }

    /// Whether `left`'s UTF-8 bytes sort before `right`'s: one `memcmp` of the contiguous bytes
    /// instead of a comparison per byte (a webhook body sorts some twenty keys per event). The order
    /// of every canonical object's keys, so writers of other canonical lines sort with it too.
    public static func precedes(_ left: String, _ right: String) -> Bool {
        var left = left
        var right = right
        return left.withUTF8 { leftBytes in
            right.withUTF8 { rightBytes in
                let common = min(leftBytes.count, rightBytes.count)
                if common > 0, let leftStart = leftBytes.baseAddress, let rightStart = rightBytes.baseAddress {
                    let order = memcmp(leftStart, rightStart, common)
                    if order != 0 { return order < 0 }
                }
                return leftBytes.count < rightBytes.count
            }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `string` as a JSON string literal. Also the string writer of the gateways'
    /// member-ordered JSON, so the project has one escaping rule.
    public static func append(string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        let plain = string.withUTF8 { bytes in
            // Most strings need no escaping: copy those in one go.
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
                index += 1
            }
            output.append(contentsOf: bytes)
            return true
        }
        if plain {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                           hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
