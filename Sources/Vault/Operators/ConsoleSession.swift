public import Foundation

/// A signed-in console session, kept server-side. The browser's cookie holds only a random
/// token; the row is found by the token's SHA-256, so a copy of the table signs nobody in.
public struct ConsoleSession: Sendable, Equatable {
    /// SHA-256 of the cookie's token, hex: the row's key.
    public var tokenHash: String
    /// Whose session it is.
    public var operatorID: String
    /// When it was signed in.
    public var createdAt: Date
    /// The last request made with it; the session ends after the idle period without one.
    public var lastSeenAt: Date
    /// The end of its absolute lifetime, however active it stays.
    public var expiresAt: Date

    public init(tokenHash: String, operatorID: String, createdAt: Date, lastSeenAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.operatorID = operatorID
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
    }
}

/// The cookie token of a console session, and what is derived from it.
public enum ConsoleSessionToken {
    /// Prefix of every token (`cs_` and 256 random bits in base32).
    public static let prefix = "cs_"

    /// A new random token.
    public static func make() -> String { OpaqueToken.make(prefix: prefix, randomBits: 256) }

    /// Whether `token` has a token's shape (checked before any look-up).
    public static func isWellFormed(_ token: String) -> Bool { OpaqueToken.isWellFormed(token, prefix: prefix, randomBits: 256) }

    /// The stored key of the session the token opens.
    public static func hash(_ token: String) -> String { Encoding.hex(Digest.sha256(Array(token.utf8))) }

    /// The session's CSRF token: HMAC-SHA256 of a fixed label under the cookie's token. Bound to
    /// the session (another session's token does not match), computed again on each request, never
    /// stored, and unguessable without the cookie, which a page of another site cannot read.
    public static func csrfToken(for token: String) -> String {
        Encoding.hex(Digest.hmacSHA256(Array("vault/console/csrf".utf8), key: Array(token.utf8)))
    }

    /// Whether `submitted` is the CSRF token of `token`'s session, compared in constant time.
    public static func csrfTokenMatches(_ submitted: String, token: String) -> Bool {
        constantTimeEquals(Array(submitted.utf8), Array(csrfToken(for: token).utf8))
    }
}
