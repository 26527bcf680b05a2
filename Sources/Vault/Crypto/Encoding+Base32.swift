/// RFC 4648 base32, lowercase and unpadded: tokens and API keys that must be
/// case-insensitive-safe, URL-safe and free of look-alike punctuation.
/// libsodium has no base32, so this one is written out.
extension Encoding {
    private static let base32Alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// RFC 4648 base32 in lowercase, without `=` padding.
    public static func base32(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bitCount = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bitCount += 8
            while bitCount >= 5 {
                bitCount -= 5
                output.append(base32Alphabet[Int((buffer >> UInt32(bitCount)) & 0x1F)])
            }
        }
        if bitCount > 0 {
            output.append(base32Alphabet[Int((buffer << UInt32(5 - bitCount)) & 0x1F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded RFC 4648 base32 in either case.
    ///
    /// Strict: rejects padding, other characters, impossible lengths and
    /// non-zero trailing bits, so each byte string has one accepted spelling
    /// per case.
    /// - Throws: ``CryptoError/invalidEncoding(_:)`` (`"base32"`).
    public static func fromBase32(_ text: String) throws -> [UInt8] {
        let invalid = CryptoError.invalidEncoding("base32")
        guard ![1, 3, 6].contains(text.utf8.count % 8) else { throw invalid }
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 5 / 8)
        var buffer: UInt32 = 0
        var bitCount = 0
        for character in text.utf8 {
            guard let value = base32Value(character) else { throw invalid }
            buffer = (buffer << 5) | UInt32(value)
            bitCount += 5
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bitCount)))
            }
        }
        guard buffer & ((1 << UInt32(bitCount)) - 1) == 0 else { throw invalid }
        return output
    }

    private static func base32Value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a")
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): character - UInt8(ascii: "2") + 26
        default: nil
        }
    }
}
