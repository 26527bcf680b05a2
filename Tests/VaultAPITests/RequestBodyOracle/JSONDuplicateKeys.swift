/// The old request path's duplicate-key scan, kept as a test oracle only (see `OldJSONBodyPath`).
///
/// Finds an object key given twice in JSON text, at any depth, in one pass over the bytes. Keys are
/// compared as `JSONDecoder` compares them: after unescaping (`"a"` and `"\u0061"` are the same
/// key), as Swift strings (canonically equivalent spellings are equal). The scan only tracks
/// nesting and strings; it does not validate the text (the decoder did).
enum JSONDuplicateKeys {
    /// The first key that repeats within one object, or nil.
    static func firstDuplicate(in bytes: UnsafeRawBufferPointer) -> String? {
        struct Frame {
            var isObject: Bool
            var expectsKey: Bool
            var keys: Set<String> = []
        }
        var stack: [Frame] = []
        var index = 0
        let count = bytes.count
        while index < count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                stack.append(Frame(isObject: true, expectsKey: true))
            case UInt8(ascii: "["):
                stack.append(Frame(isObject: false, expectsKey: false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
            case UInt8(ascii: ","):
                if let last = stack.indices.last, stack[last].isObject { stack[last].expectsKey = true }
            case UInt8(ascii: "\""):
                let start = index + 1
                var end = start
                var escaped = false
                while end < count, bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 1
                    }
                    end += 1
                }
                if let last = stack.indices.last, stack[last].isObject, stack[last].expectsKey {
                    let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<min(end, count)])
                    let key = escaped ? unescaped(raw) : String(decoding: raw, as: UTF8.self)
                    if !stack[last].keys.insert(key).inserted { return key }
                    stack[last].expectsKey = false
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The text of a JSON string's contents with its escapes resolved; malformed escapes are kept
    /// as written (the decoder refuses them).
    static func unescaped(_ raw: UnsafeRawBufferPointer) -> String {
        var scalars = String.UnicodeScalarView()
        var bytes: [UInt8] = []
        func flush() {
            guard !bytes.isEmpty else { return }
            scalars.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars)
            bytes.removeAll(keepingCapacity: true)
        }
        func hex(at offset: Int) -> UInt32? {
            guard offset + 4 <= raw.count else { return nil }
            var value: UInt32 = 0
            for byte in raw[offset..<offset + 4] {
                guard let digit = ASCIIHex.value(byte) else { return nil }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < raw.count else {
                bytes.append(byte)
                index += 1
                continue
            }
            let escape = raw[index + 1]
            let simple: UInt8? = switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escape
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
            if let simple {
                bytes.append(simple)
                index += 2
                continue
            }
            guard escape == UInt8(ascii: "u"), let unit = hex(at: index + 2) else {
                bytes.append(byte)
                index += 1
                continue
            }
            flush()
            index += 6
            if (0xD800...0xDBFF).contains(unit), index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"),
                raw[index + 1] == UInt8(ascii: "u"), let low = hex(at: index + 2), (0xDC00...0xDFFF).contains(low)
            {
                let value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                index += 6
            } else {
                scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
            }
        }
        flush()
        return String(scalars)
    }
}

/// Hexadecimal digit values.
private enum ASCIIHex {
    static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
