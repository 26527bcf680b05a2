import Foundation

/// A blind index of card holder names: cards are found by name without the
/// name, or any unkeyed function of it, being stored.
///
/// A name is normalized into tokens (case, diacritics and width folded, apostrophes dropped, split
/// at anything but letters and digits: `"Zoë O'Brien-Smith"` → `zoe`, `obrien`, `smith`), and
/// each token is stored as a keyed BLAKE2b MAC (16 bytes) under a per-merchant key derived with
/// `crypto_kdf` (context `namidx01`) from the merchant's fingerprint key, as the idempotency MAC
/// key is (``DerivedKeyCache``). The key exists only in memory; without it a database thief cannot
/// test candidate names. What the index does reveal to such a thief: which of a merchant's cards
/// share a name token, and how many tokens a name has (a blind index is an equality index).
public struct HolderNameIndex: Sendable {
    /// The `crypto_kdf` context of the index key.
    public static let context = "namidx01"
    /// Bytes of each stored MAC (128 bits: no collisions among a merchant's tokens).
    public static let macLength = 16
    /// At most this many tokens of a name are indexed, and a search uses at most this many.
    public static let maximumTokens = 12

    private let keys: DerivedKeyCache

    /// An index keyed from `keyring`'s fingerprint keys.
    public init(keyring: Keyring) {
        keys = DerivedKeyCache(keyring: keyring, from: .fingerprint, context: Self.context)
    }

    /// The normalized tokens of a name, unique, in order of first appearance.
    ///
    /// A name of ASCII only (nearly every card's) takes ``asciiTokens(of:)``: the same tokens
    /// without Foundation's folding, which was about a thirtieth of a registration's CPU.
    public static func tokens(of name: String) -> [String] {
        isASCII(name) ? asciiTokens(of: name) : foldedTokens(of: name)
    }

    /// Whether every byte of `name` is ASCII (a loop over the contiguous bytes: cheaper than the
    /// generic `allSatisfy` in the unoptimized build).
    private static func isASCII(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                if bytes[index] >= 0x80 { return false }
                index += 1
            }
            return true
        }
    }

    /// The tokens of an ASCII name, byte by byte: letters lowercased, apostrophes dropped, split at
    /// anything but letters and digits. For ASCII, exactly what ``foldedTokens(of:)`` gives (a
    /// property test compares them): case folding of ASCII is lowercasing, and ASCII has no
    /// diacritics or width variants.
    static func asciiTokens(of name: String) -> [String] {
        var tokens: [String] = []
        var word: [UInt8] = []
        func finish() {
            guard !word.isEmpty else { return }
            let token = String(decoding: word, as: UTF8.self)
            word.removeAll(keepingCapacity: true)
            if tokens.count < maximumTokens, !tokens.contains(token) { tokens.append(token) }
        }
        // Comparisons, not range patterns: each `case a...b` is a generic call per byte unoptimized.
        var name = name
        name.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) {
                    word.append(byte)
                } else if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
                    word.append(byte | 0x20)
                } else if byte != UInt8(ascii: "'") {
                    finish()
                }
            }
        }
        finish()
        return tokens
    }

    /// The tokens of any name through Foundation's folding (case, diacritics and width).
    static func foldedTokens(of name: String) -> [String] {
        let folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: Locale(identifier: "en_US_POSIX"))
            .lowercased()
            .replacingOccurrences(of: "'", with: "").replacingOccurrences(of: "\u{2019}", with: "")
        var seen: Set<String> = []
        var tokens: [String] = []
        for word in folded.split(whereSeparator: { !($0.isLetter || $0.isNumber) }) where seen.insert(String(word)).inserted {
            tokens.append(String(word))
            if tokens.count == maximumTokens { break }
        }
        return tokens
    }

    /// The MACs of a name's tokens for one merchant (empty for no name).
    /// - Throws: `KeyringError.keyUnavailable` for an off-boarded merchant; crypto errors.
    public func macs(of name: String?, merchantID: String) async throws -> [[UInt8]] {
        let tokens = name.map(Self.tokens) ?? []
        guard !tokens.isEmpty else { return [] }
        let key = try await keys.key(merchantID: merchantID)
        return try tokens.map { try KeyedHash.blake2b(Array($0.utf8), key: key, length: Self.macLength) }
    }
}
