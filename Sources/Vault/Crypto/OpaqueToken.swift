public import Foundation

/// Opaque identifiers handed to clients: `secureCardReference` (`sc_...`),
/// API keys. A prefix saying what the token is, then base32 of random bits.
public enum OpaqueToken {
    /// `prefix` followed by lowercase unpadded base32 of `randomBits` random
    /// bits, rounded up to whole bytes (160 bits: 32 characters).
    ///
    /// Card tokens must carry at least 128 random bits.
    public static func make(prefix: String, randomBits: Int = 160) -> String {
        precondition(randomBits > 0, "a token needs random bits")
        return prefix + Encoding.base32(RandomBytes.make(byteCount(randomBits)))
    }

    /// `prefix` followed by lowercase unpadded base32 of `bits` bits (rounded up to whole bytes,
    /// so the same length as ``make(prefix:randomBits:)``): the first 48 are the milliseconds since
    /// 1970 of `now`, big-endian, the rest random (at least 32).
    ///
    /// For identifiers of rows written at a high rate (transactions, audit and webhook events):
    /// ids made close in time share their first characters, so each write lands in the few most
    /// recent pages of the table's unique index on them instead of in a random page of it, which
    /// is what a commit then writes to disk. Not for anything that must not reveal when it was made.
    public static func makeTimeOrdered(prefix: String, bits: Int, at now: Date = Date()) -> String {
        let count = byteCount(bits)
        precondition(count >= timeBytes + 4, "a time-ordered token needs at least 32 random bits")
        let millis = UInt64(max(0, (now.timeIntervalSince1970 * 1000).rounded(.down)))
        // The milliseconds big-endian, then the random bytes, in one buffer (every event id and
        // transaction id of a charge is made here).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        var shift = 8 * (timeBytes - 1)
        while shift >= 0 {
            bytes.append(UInt8(truncatingIfNeeded: millis >> UInt64(shift)))
            shift -= 8
        }
        bytes.append(contentsOf: RandomBytes.make(count - timeBytes))
        return prefix + Encoding.base32(bytes)
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

    private static let timeBytes = 6
}
