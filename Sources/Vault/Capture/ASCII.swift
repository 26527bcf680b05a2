/// Byte-level helpers for parsing untrusted ASCII input without trapping.
enum ASCII {
    static let zero: UInt8 = 0x30
    static let nine: UInt8 = 0x39
    static let space: UInt8 = 0x20
    static let dash: UInt8 = 0x2D

    /// `true` for `0`-`9`.
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= zero && byte <= nine
    }

    /// The value of a hexadecimal digit (either case), or `nil`.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte &- 0x30
        case 0x41...0x46: byte &- 0x41 &+ 10
        case 0x61...0x66: byte &- 0x61 &+ 10
        default: nil
        }
    }

    /// `true` for `A`-`Z` and `a`-`z`.
    @inline(__always)
    static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
    }

    /// `true` for space, tab, CR and LF.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The integer value of a run of ASCII digits, or `nil` if any byte is not a digit
    /// or the run is empty or longer than 9 digits (so the result cannot overflow).
    static func integer<C: Collection>(_ bytes: C) -> Int? where C.Element == UInt8 {
        guard !bytes.isEmpty, bytes.count <= 9 else { return nil }
        var value = 0
        for byte in bytes {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte &- zero)
        }
        return value
    }

    /// The bytes as a string; only called on bytes already checked to be ASCII.
    static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Two-digit zero-padded decimal (0-99), for MMYY and YYMM.
    static func twoDigits(_ value: Int) -> String {
        let clamped = ((value % 100) + 100) % 100
        return clamped < 10 ? "0\(clamped)" : "\(clamped)"
    }
}

extension String {
    /// `true` when any Unicode scalar is a control character (C0, DEL, C1): tabs, newlines, NUL.
    var containsControlCharacters: Bool {
        unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The string without leading and trailing whitespace (Unicode white space), without Foundation.
    var trimmedWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
