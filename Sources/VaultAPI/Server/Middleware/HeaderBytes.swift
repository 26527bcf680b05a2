/// Header values as the middlewares read them: bytes, with the optional whitespace around a value
/// (spaces and tabs, RFC 9110 "OWS") ignored.
enum HeaderBytes {
    /// `bytes` without the spaces and tabs at either end.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
    }
}
