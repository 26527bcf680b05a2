import Foundation
import Vault

/// The keys list cursors are sealed under: one per merchant, derived (`crypto_kdf`, context
/// `lcursor1`) from the merchant's fingerprint key, so no new wrapped key, table or migration is
/// needed and a cursor means nothing to another merchant.
final class ListCursorKeys: Sendable {
    private let keys: DerivedKeyCache

    /// Cursor keys under `keyring`'s merchant keys.
    init(keyring: Keyring) {
        keys = DerivedKeyCache(keyring: keyring, from: .fingerprint, context: "lcursor1")
    }

    /// The cursors of one list (`list`, e.g. `secure-cards`) of one merchant.
    /// - Throws: `KeyringError` when the merchant's keys cannot be had.
    func cursors(merchantID: String, list: String) async throws -> ListCursors {
        ListCursors(key: try await keys.key(merchantID: merchantID), merchantID: merchantID, list: list)
    }
}

/// Opaque cursors of one merchant's list: the position (the route's sort key, a table-wide row
/// sequence) sealed with XChaCha20-Poly1305 under the merchant's cursor key, the merchant and the
/// list bound as associated data, a fresh nonce each time.
///
/// So a cursor shows nothing of the position (polling one's own list does not count every
/// merchant's rows), two cursors of the same position cannot be told apart from two of different
/// ones, and a cursor edited, made for another list or handed over by another merchant does not
/// open: the list answers 422 `invalid_cursor` and reads nothing.
struct ListCursors: Sendable {
    /// The format byte in front of the sealed position.
    static let version: UInt8 = 2

    let key: SecureBytes
    let merchantID: String
    let list: String

    /// The cursor of a page that ends at `position`.
    /// - Throws: crypto errors (a key of the wrong length).
    func cursor(after position: String) throws -> String {
        let sealed = try RecordCipher.seal(Array(position.utf8), key: key, associatedData: associatedData)
        return Self.base64URL([Self.version] + sealed)
    }

    /// The position a cursor of this list and merchant holds; nil for anything else.
    func position(of cursor: String) -> String? {
        guard cursor.utf8.count <= Self.maximumLength, let bytes = Self.bytes(base64URL: cursor), bytes.first == Self.version,
            let opened = try? RecordCipher.open(bytes.dropFirst(), key: key, associatedData: associatedData, lifetime: .brief)
        else { return nil }
        return String(decoding: opened.copyToArray(), as: UTF8.self)
    }

    /// Longer cursors are refused before any decoding (a real one is under 100 characters).
    static let maximumLength = 256

    private var associatedData: [UInt8] {
        Array("vault/list-cursor/v\(Self.version)".utf8) + [0] + Array(merchantID.utf8) + [0] + Array(list.utf8)
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Encoding.base64(bytes)
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    private static func bytes(base64URL text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "=") }) else { return nil }
        var padded = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while padded.utf8.count % 4 != 0 { padded += "=" }
        return try? Encoding.fromBase64(padded)
    }
}
