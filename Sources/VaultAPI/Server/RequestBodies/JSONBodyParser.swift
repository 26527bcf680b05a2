/// Parses a request body's bytes into a ``JSONValue`` in one pass.
///
/// The grammar is RFC 8259's, as `JSONDecoder` read it before: any value at the top (not only an
/// object), one UTF-8 byte order mark allowed in front, and one trailing comma allowed before `}`
/// or `]` (clients send them, and they were accepted). Text must be UTF-8 (a UTF-16 or UTF-32 body
/// is refused, as is a malformed or overlong sequence, an encoded surrogate, a lone `\u` surrogate
/// escape, or a raw control character inside a string). A number too large for a `Double` is
/// refused like malformed JSON.
///
/// Two refusals are made while parsing, before anything is checked or decoded:
/// - a key given twice in one object, at any depth (``JSONBodyError/duplicateKey(_:)``), compared
///   after unescaping and as Swift strings (`"a"` and `"\u0061"`, `"é"` and `"e\u0301"` are the
///   same key): a proxy, a log reader or the client's own library may read the other of two values,
///   and ambiguous input must never move money;
/// - a value nested inside more than ``TextPolicy/maximumDepth`` arrays and objects
///   (``JSONBodyError/tooDeep``): no request type comes near it, and the parser recurses once per level.
struct JSONBodyParser {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The value `bytes` hold, or the first reason they are refused.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONBodyError) -> JSONValue {
        var parser = JSONBodyParser(bytes: bytes)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw .malformed }
        return value
    }

    /// The value `bytes` hold (a test and fuzzing convenience).
    static func parse(_ bytes: [UInt8]) throws(JSONBodyError) -> JSONValue {
        let result: Result<JSONValue, JSONBodyError> = bytes.withUnsafeBytes { buffer in
            do throws(JSONBodyError) { return .success(try parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// The value starting at `index`, enclosed by `depth` arrays and objects.
    private mutating func value(depth: Int) throws(JSONBodyError) -> JSONValue {
        guard depth <= TextPolicy.maximumDepth else { throw .tooDeep }
        guard let byte = current else { throw .malformed }
        switch byte {
        case UInt8(ascii: "{"): return .object(try object(depth: depth))
        case UInt8(ascii: "["): return .array(try array(depth: depth))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw .malformed
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONBodyError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw .malformed }
        let expected = UnsafeRawBufferPointer(start: word.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] { throw .malformed }
        index += count
    }

    /// After `,`: whether the container closes here (one trailing comma is accepted).
    private mutating func closesAfterComma(_ close: UInt8) -> Bool {
        skipWhitespace()
        guard current == close else { return false }
        index += 1
        return true
    }

    private mutating func object(depth: Int) throws(JSONBodyError) -> JSONObject {
        index += 1
        var members: [JSONMember] = []
        var keys: Set<String> = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return JSONObject(members: members)
        }
        while true {
            guard current == UInt8(ascii: "\"") else { throw .malformed }
            let key = try string()
            // A few members: compare in place; more: a set, so a hostile body stays linear.
            if members.count < 8 {
                if members.contains(where: { $0.key == key }) { throw .duplicateKey(key) }
                if members.count == 7 { keys = Set(members.lazy.map(\.key)); keys.insert(key) }
            } else if !keys.insert(key).inserted {
                throw .duplicateKey(key)
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw .malformed }
            index += 1
            skipWhitespace()
            members.append(JSONMember(key: key, value: try value(depth: depth + 1)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                if closesAfterComma(UInt8(ascii: "}")) { return JSONObject(members: members) }
            case UInt8(ascii: "}"):
                index += 1
                return JSONObject(members: members)
            default:
                throw .malformed
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONBodyError) -> [JSONValue] {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return items
        }
        while true {
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                if closesAfterComma(UInt8(ascii: "]")) { return items }
            case UInt8(ascii: "]"):
                index += 1
                return items
            default:
                throw .malformed
            }
        }
    }

    /// A string from its opening quote; the text without escapes is taken straight from the bytes.
    private mutating func string() throws(JSONBodyError) -> String {
        index += 1
        let start = index
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if ascii { return String(decoding: raw, as: UTF8.self) }
                guard let text = String(validating: raw, as: UTF8.self) else { throw .malformed }
                return text
            case UInt8(ascii: "\\"):
                return try escapedString(from: start)
            case 0..<0x20:
                throw .malformed
            case 0x80...:
                ascii = false
            default:
                break
            }
            index += 1
        }
        throw .malformed
    }

    /// The rest of a string that has an escape, from its first byte at `start`.
    private mutating func escapedString(from start: Int) throws(JSONBodyError) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(index - start + 16)
        text.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: text, as: UTF8.self) else { throw .malformed }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                guard let escape = current else { throw .malformed }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"): try appendUnicodeEscape(to: &text)
                default: throw .malformed
                }
            case 0..<0x20:
                throw .malformed
            default:
                text.append(byte)
                index += 1
            }
        }
        throw .malformed
    }

    /// `XXXX` after `\u` (and a low surrogate's `\uXXXX` after a high one), appended as UTF-8.
    private mutating func appendUnicodeEscape(to text: inout [UInt8]) throws(JSONBodyError) {
        var unit = try hexUnit()
        if (0xD800...0xDBFF).contains(unit) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { throw .malformed }
            index += 2
            let low = try hexUnit()
            guard (0xDC00...0xDFFF).contains(low) else { throw .malformed }
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(unit) {
            throw .malformed
        }
        guard let scalar = Unicode.Scalar(unit) else { throw .malformed }
        text.append(contentsOf: UTF8.encode(scalar)!)
    }

    private mutating func hexUnit() throws(JSONBodyError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw .malformed }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw .malformed
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// A number's literal text, checked against the JSON grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    private mutating func number() throws(JSONBodyError) -> String {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw .malformed }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        var plain = true
        if current == UInt8(ascii: ".") {
            plain = false
            index += 1
            guard let digit = current, isDigit(digit) else { throw .malformed }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            plain = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, isDigit(digit) else { throw .malformed }
            skipDigits()
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // Beyond a Double's range (1e400) was refused as malformed JSON, and still is.
        if !plain || index - start > 300, !(Double(text)?.isFinite ?? false) { throw .malformed }
        return text
    }

    private func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }
}

/// Why a body was refused while parsing.
enum JSONBodyError: Error, Equatable {
    /// Not JSON, or not UTF-8.
    case malformed
    /// An object gives this key twice.
    case duplicateKey(String)
    /// Nested deeper than ``TextPolicy/maximumDepth``.
    case tooDeep
}
