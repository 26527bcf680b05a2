/// Quoted-printable (RFC 2045 §6.7) for a text body: printable ASCII kept, every other byte, `=`,
/// and a space or tab at a line's end written `=XX`, lines at most 76 characters with `=` soft
/// breaks. Keeps a mail body 7-bit and short-lined whatever relay carries it.
enum QuotedPrintable {
    /// `text`'s UTF-8 encoded; its line breaks (LF) stay line breaks.
    static func encode(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { encodeLine(Array($0.utf8)) }.joined(separator: "\n")
    }

    private static func encodeLine(_ bytes: [UInt8]) -> String {
        var lines: [String] = []
        var line = ""
        for (index, byte) in bytes.enumerated() {
            let last = index == bytes.count - 1
            let keep = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "=")) || ((byte == 0x20 || byte == 0x09) && !last)
            let piece = keep ? String(UnicodeScalar(byte)) : "=" + hex(byte)
            if line.count + piece.count > 75 {
                lines.append(line + "=")
                line = ""
            }
            line += piece
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
