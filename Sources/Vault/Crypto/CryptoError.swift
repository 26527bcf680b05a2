/// Why a libsodium operation failed.
///
/// Cases carry lengths and names only: never key bytes, plaintext or the text
/// that failed to decode, so an error can be logged as it is.
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `sodium_init()` reported failure; no crypto can run in this process.
    case initializationFailed
    /// A key had the wrong number of bytes for the primitive it was given to.
    case invalidKeyLength(expected: Int, actual: Int)
    /// Encryption failed (libsodium refused the input).
    case sealFailed
    /// Opening failed: the ciphertext was tampered with, or the key or the
    /// associated data differ from the ones it was sealed with.
    case authenticationFailed
    /// The sealed bytes are too short to hold a nonce and a tag.
    case malformedCiphertext
    /// Key derivation refused its parameters (context, length, salt or cost).
    case keyDerivationFailed
    /// `sodium_malloc` or Argon2id could not get the memory it needed.
    case outOfMemory
    /// Text could not be decoded; the associated value names what was being
    /// decoded (for example `"base64"`), never the input itself.
    case invalidEncoding(String)

    /// A message fit for logs: it names the problem, never secret bytes.
    public var description: String {
        switch self {
        case .initializationFailed:
            "libsodium failed to initialize"
        case .invalidKeyLength(let expected, let actual):
            "invalid key length: expected \(expected) bytes, got \(actual)"
        case .sealFailed:
            "encryption failed"
        case .authenticationFailed:
            "decryption failed: ciphertext, key or associated data do not match"
        case .malformedCiphertext:
            "malformed ciphertext: too short for nonce and tag"
        case .keyDerivationFailed:
            "key derivation failed: invalid parameters"
        case .outOfMemory:
            "out of memory for secure allocation or key derivation"
        case .invalidEncoding(let what):
            "invalid encoding: \(what)"
        }
    }
}
