/// FNV-1a, 64 bits: a stable (not secure) digest for deriving short ids from longer keys.
///
/// Used where a gateway field is shorter than our idempotency keys (Authorize.Net's 20-character
/// `refId`) and for the sandbox's deterministic transaction ids and authorization codes.
enum StableHash {
    /// The 64-bit FNV-1a digest of the UTF-8 bytes of `text`.
    static func fnv1a64(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The digest as 16 lower-case hex digits.
    static func hex(_ text: String) -> String {
        let digits = String(fnv1a64(text), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
