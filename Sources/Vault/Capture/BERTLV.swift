/// A strict, bounded parser for BER-TLV as EMV chips produce it (EMV Book 3, Annex B).
///
/// Supported: tags of up to four bytes (multi-byte when the low five bits of the first are all
/// set), definite lengths in short form and long form `81`-`84`, constructed data objects
/// (bit 6 of the first tag byte, e.g. templates `70` and `77`) parsed recursively, and `00`
/// padding bytes between objects. Rejected with `invalid_emv`: odd-length or non-hex input,
/// indefinite length `80`, lengths past the end of the data, tags longer than four bytes,
/// nesting deeper than ``maximumDepth``, input over ``maximumInputLength`` hex digits.
/// ASCII white space between hex digits is ignored.
public enum BERTLV {
    /// Deepest nesting of constructed objects accepted (EMV data nests two or three deep).
    public static let maximumDepth = 8
    /// Longest hex input accepted, in hex digits (8 KiB of TLV data).
    public static let maximumInputLength = 16_384

    /// One data object: its tag, its value bytes and, when constructed, the objects inside.
    public struct Element: Sendable, Equatable {
        /// The tag bytes as a big-endian integer, e.g. `0x5A`, `0x5F24`, `0x9F02`.
        public let tag: UInt32
        /// The value bytes (for a constructed object, the encoding of its children).
        public let value: [UInt8]
        /// The objects inside a constructed object; empty for a primitive one.
        public let children: [Element]

        /// Creates an element; used by the parser and by tests.
        public init(tag: UInt32, value: [UInt8], children: [Element] = []) {
            self.tag = tag
            self.value = value
            self.children = children
        }

        /// `true` when bit 6 of the tag's first byte marks a constructed object.
        public var isConstructed: Bool { BERTLV.isConstructed(tag: tag) }

        /// This element and all elements inside it, depth first, in document order.
        public var flattened: [Element] {
            [self] + children.flatMap(\.flattened)
        }
    }

    /// Parses hex-encoded TLV data (either case; white space ignored).
    /// - Throws: ``CardDataError`` `invalid_emv` on field `emv` with the reason.
    public static func parse(hex: String) throws(CardDataError) -> [Element] {
        try parse(bytes: decodeHex(hex))
    }

    /// Parses TLV bytes.
    /// - Throws: ``CardDataError`` `invalid_emv` on field `emv` with the reason.
    public static func parse(bytes: [UInt8]) throws(CardDataError) -> [Element] {
        guard bytes.count <= maximumInputLength / 2 else { throw invalid("The EMV data is too long.") }
        return try parseObjects(bytes[...], depth: 1)
    }

    /// The first element with `tag` anywhere in `elements`, depth first.
    public static func first(_ tag: UInt32, in elements: [Element]) -> Element? {
        for element in elements {
            if element.tag == tag { return element }
            if let found = first(tag, in: element.children) { return found }
        }
        return nil
    }

    /// Decodes hex digits to bytes, skipping ASCII white space.
    /// - Throws: ``CardDataError`` `invalid_emv` for non-hex characters, odd length or too much input.
    static func decodeHex(_ hex: String) throws(CardDataError) -> [UInt8] {
        var bytes: [UInt8] = []
        var high: UInt8?
        var digits = 0
        for character in hex.utf8 {
            if ASCII.isWhitespace(character) { continue }
            guard let nibble = ASCII.hexValue(character) else {
                throw invalid("The EMV data contains characters that are not hexadecimal digits.")
            }
            digits += 1
            guard digits <= maximumInputLength else { throw invalid("The EMV data is too long.") }
            if let pending = high {
                bytes.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else { throw invalid("The EMV data has an odd number of hexadecimal digits.") }
        return bytes
    }

    static func isConstructed(tag: UInt32) -> Bool {
        var first = tag
        while first > 0xFF { first >>= 8 }
        return first & 0x20 != 0
    }

    private static func parseObjects(_ data: ArraySlice<UInt8>, depth: Int) throws(CardDataError) -> [Element] {
        guard depth <= maximumDepth else { throw invalid("The EMV data is nested too deeply.") }
        var elements: [Element] = []
        var cursor = data.startIndex
        while cursor < data.endIndex {
            if data[cursor] == 0x00 {
                cursor += 1
                continue
            }
            let tag = try readTag(data, at: &cursor)
            let length = try readLength(data, at: &cursor)
            guard length <= data.endIndex - cursor else {
                throw invalid("An EMV data object is longer than the data that holds it.")
            }
            let value = data[cursor..<(cursor + length)]
            cursor += length
            let children = isConstructed(tag: tag) ? try parseObjects(value, depth: depth + 1) : []
            elements.append(Element(tag: tag, value: Array(value), children: children))
        }
        return elements
    }

    private static func readTag(_ data: ArraySlice<UInt8>, at cursor: inout Int) throws(CardDataError) -> UInt32 {
        guard cursor < data.endIndex else { throw invalid("An EMV tag is cut short.") }
        let first = data[cursor]
        cursor += 1
        var tag = UInt32(first)
        guard first & 0x1F == 0x1F else { return tag }
        var byteCount = 1
        while true {
            guard cursor < data.endIndex else { throw invalid("An EMV tag is cut short.") }
            let next = data[cursor]
            cursor += 1
            byteCount += 1
            guard byteCount <= 4 else { throw invalid("An EMV tag is longer than four bytes.") }
            tag = tag << 8 | UInt32(next)
            if next & 0x80 == 0 { return tag }
        }
    }

    private static func readLength(_ data: ArraySlice<UInt8>, at cursor: inout Int) throws(CardDataError) -> Int {
        guard cursor < data.endIndex else { throw invalid("An EMV length is missing.") }
        let first = data[cursor]
        cursor += 1
        if first < 0x80 { return Int(first) }
        if first == 0x80 { throw invalid("Indefinite lengths are not allowed in EMV data.") }
        let count = Int(first & 0x7F)
        guard count <= 4 else { throw invalid("An EMV length field is too long.") }
        guard count <= data.endIndex - cursor else { throw invalid("An EMV length is cut short.") }
        var length = 0
        for _ in 0..<count {
            length = length << 8 | Int(data[cursor])
            cursor += 1
        }
        return length
    }

    static func invalid(_ message: String) -> CardDataError {
        CardDataError(field: "emv", code: CardDataError.Code.invalidEMV, message: message)
    }
}
