import Foundation

/// Client secrets of capture sessions, kept only as a keyed MAC.
///
/// A client secret is `<session id>_secret_<160 random bits>`: a client holding it names its
/// session, and the server can find the row before checking anything. The stored MAC (BLAKE2b-256
/// under a subkey, context `capsess1`, of the merchant's fingerprint key) covers the secret and
/// the row's clear columns (merchant, allowed origin, merchantReference, verify, creation and
/// expiry), so someone who can write to the database but holds no key can neither make a secret
/// that opens a session nor move, extend or re-point one: the MAC no longer matches.
public struct CaptureSessionSecrets: Sendable {
    /// The `crypto_kdf` context of the MAC key.
    public static let context = "capsess1"
    /// Between the session id and the random part.
    static let separator = "_secret_"

    private let macKeys: DerivedKeyCache

    /// Secrets MAC'ed with subkeys of the merchants' fingerprint keys from `keyring`.
    public init(keyring: Keyring) {
        // Fingerprint keys have one version, never rotated.
        macKeys = DerivedKeyCache(keyring: keyring, from: .fingerprint, context: Self.context, parentVersion: 1)
    }

    /// A new client secret for `session`.
    static func make(for sessionID: String) -> String {
        OpaqueToken.make(prefix: sessionID + separator, randomBits: 160)
    }

    /// The session id a client secret names, or nil when it has not the shape of one.
    public static func sessionID(of secret: String) -> String? {
        guard let range = secret.range(of: separator), range.lowerBound > secret.startIndex, range.upperBound < secret.endIndex else { return nil }
        return String(secret[..<range.lowerBound])
    }

    /// The MAC stored for `secret` of `session`.
    func mac(of secret: String, session: CaptureSession) async throws -> [UInt8] {
        let key = try await macKeys.key(merchantID: session.merchantID)
        let fields = [
            "capture-session", session.id, session.merchantID, session.allowedOrigin.value, session.merchantReference,
            session.verify.map { $0 ? "1" : "0" } ?? "-", Timestamp.string(session.createdAt), Timestamp.string(session.expiresAt), secret,
        ]
        return try KeyedHash.blake2b(Array(fields.joined(separator: "\n").utf8), key: key, length: 32)
    }

    /// Whether `secret` is the one `row` was created with and the row's clear columns are as created.
    /// False, never a throw, when the merchant's keys are gone.
    func verify(_ secret: String, _ row: CaptureSessionRow) async -> Bool {
        guard let expected = try? await mac(of: secret, session: row.session), !row.secretMAC.isEmpty else { return false }
        return constantTimeEquals(expected, row.secretMAC)
    }
}
