/// Opaque identifiers handed to clients: `secureCardReference` (`sc_...`),
/// API keys. A prefix saying what the token is, then base32 of random bits.
public enum OpaqueToken {
    /// `prefix` followed by lowercase unpadded base32 of `randomBits` random
    /// bits, rounded up to whole bytes (160 bits: 32 characters).
    ///
    /// SPEC §4 asks for at least 128 random bits in card tokens.
    public static func make(prefix: String, randomBits: Int = 160) -> String {
        precondition(randomBits > 0, "a token needs random bits")
        return prefix + Encoding.base32(RandomBytes.make(byteCount(randomBits)))
    }

    /// Whether `token` has the shape ``make(prefix:randomBits:)`` produces:
    /// the prefix, then exactly the right number of canonical base32
    /// characters. Lets a handler reject garbage before any lookup.
    public static func isWellFormed(_ token: String, prefix: String, randomBits: Int = 160) -> Bool {
        guard randomBits > 0, token.hasPrefix(prefix) else { return false }
        let body = token.utf8.dropFirst(prefix.utf8.count)
        let bytes = byteCount(randomBits)
        guard body.count == (bytes * 8 + 4) / 5,
              body.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "2")...UInt8(ascii: "7")).contains($0) })
        else { return false }
        return (try? Encoding.fromBase32(String(decoding: body, as: UTF8.self)))?.count == bytes
    }

    private static func byteCount(_ bits: Int) -> Int { (bits + 7) / 8 }
}
