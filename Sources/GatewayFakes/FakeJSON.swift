/// A strict JSON reader that keeps object members in order, so the fake Authorize.Net server
/// can reject requests whose elements are out of schema order (as the real XML conversion does).
indirect enum FakeJSON: Equatable, Sendable {
    case object([(String, FakeJSON)])
    case array([FakeJSON])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    static func == (lhs: FakeJSON, rhs: FakeJSON) -> Bool {
        switch (lhs, rhs) {
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.array(a), .array(b)): a == b
        case let (.string(a), .string(b)), let (.number(a), .number(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    /// Member names in order, for objects.
    var keys: [String] {
        if case let .object(members) = self { return members.map(\.0) }
        return []
    }

    /// A member of an object.
    subscript(_ key: String) -> FakeJSON? {
        if case let .object(members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    /// A string or number member's text.
    var text: String? {
        switch self {
        case let .string(value), let .number(value): value
        case let .bool(value): String(value)
        default: nil
        }
    }

    /// Parses a document; `nil` unless it is one well-formed JSON value.
    static func parse(_ bytes: [UInt8]) -> FakeJSON? {
        var reader = Reader(bytes: bytes)
        guard let value = reader.value() else { return nil }
        reader.skipSpace()
        return reader.index == bytes.count ? value : nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value() -> FakeJSON? {
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object()
            case UInt8(ascii: "["): return array()
            case UInt8(ascii: "\""): return string().map(FakeJSON.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        mutating func literal(_ word: String, _ value: FakeJSON) -> FakeJSON? {
            guard bytes[index...].starts(with: word.utf8) else { return nil }
            index += word.utf8.count
            return value
        }

        mutating func number() -> FakeJSON? {
            let start = index
            while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
            guard index > start else { return nil }
            return .number(String(decoding: bytes[start..<index], as: UTF8.self))
        }

        mutating func string() -> String? {
            index += 1
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard index + 4 <= bytes.count,
                              let code = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16),
                              let scalar = Unicode.Scalar(code) else { return nil }
                        index += 4
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: out.append(escaped)
                    }
                case 0x00..<0x20:
                    return nil
                default:
                    out.append(byte)
                }
            }
            return nil
        }

        mutating func array() -> FakeJSON? {
            index += 1
            var elements: [FakeJSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                guard let element = value() else { return nil }
                elements.append(element)
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                return nil
            }
        }

        mutating func object() -> FakeJSON? {
            index += 1
            var members: [(String, FakeJSON)] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let member = value() else { return nil }
                members.append((key, member))
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                return nil
            }
        }
    }
}

/// Writes fake replies: objects with members in the order given.
enum FakeJSONWriter {
    static func write(_ value: FakeJSON) -> String {
        switch value {
        case let .object(members):
            "{" + members.map { quote($0.0) + ":" + write($0.1) }.joined(separator: ",") + "}"
        case let .array(elements):
            "[" + elements.map(write).joined(separator: ",") + "]"
        case let .string(text): quote(text)
        case let .number(text): text
        case let .bool(flag): flag ? "true" : "false"
        case .null: "null"
        }
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
