internal import CSodium

/// Operator passwords: the strength floor and their Argon2id hashes (libsodium's
/// `crypto_pwhash_str`, whose output names the algorithm, cost and salt, so a hash made at one
/// cost still verifies after the cost is raised).
public enum OperatorPassword {
    /// Fewest characters accepted.
    public static let minimumLength = 12

    /// Why a password is refused, without the password.
    public enum Weakness: Error, Equatable, CustomStringConvertible {
        /// Fewer than ``OperatorPassword/minimumLength`` characters.
        case tooShort
        /// A common password, or a common word with digits or symbols around it.
        case common

        public var description: String {
            switch self {
            case .tooShort: "an operator password has at least \(OperatorPassword.minimumLength) characters"
            case .common: "the operator password is a common one or a common word with digits or symbols; choose another"
            }
        }
    }

    /// How much work a hash costs: `interactive` (libsodium's interactive Argon2id limits: 64 MiB,
    /// 2 passes) for real accounts, `minimum` only for tests.
    public enum Cost: Sendable {
        case interactive
        case minimum

        var limits: (ops: UInt64, mem: Int) {
            switch self {
            case .interactive: (UInt64(crypto_pwhash_argon2id_opslimit_interactive()), crypto_pwhash_argon2id_memlimit_interactive())
            case .minimum: (UInt64(crypto_pwhash_argon2id_opslimit_min()), 8192)
            }
        }
    }

    /// Long, often leaked passwords that the length floor alone would let through.
    static let common: Set<String> = [
        "123456789012", "1234567890123", "12345678901234", "qwertyuiop12", "qwertyuiop123", "1q2w3e4r5t6y", "1qaz2wsx3edc",
        "aaaaaaaaaaaa", "abcdefghijkl", "abc123abc123", "password1234", "password12345", "passw0rd1234", "iloveyou1234",
        "qwerty123456", "123456qwerty", "letmein12345", "welcome12345", "administrator", "changeme1234", "trustno11234",
        "football1234", "baseball1234", "monkey123456", "dragon123456", "sunshine1234", "princess1234", "qazwsxedcrfv",
    ]

    /// The weakness of `password`, or nil when it clears the floor.
    public static func weakness(of password: String) -> Weakness? {
        guard password.unicodeScalars.count >= minimumLength else { return .tooShort }
        let lowered = password.lowercased()
        if common.contains(lowered) || PassphraseStrength.isDecoratedCommonWord(lowered) { return .common }
        return nil
    }

    /// The Argon2id hash string of `password`.
    /// - Throws: `CryptoError.outOfMemory` when libsodium cannot allocate the memory.
    public static func hash(_ password: String, cost: Cost = .interactive) throws -> String {
        try Sodium.ensureInitialized()
        let limits = cost.limits
        var output = [CChar](repeating: 0, count: Int(crypto_pwhash_strbytes()))
        let bytes = Array(password.utf8)
        let status = bytes.withSodiumBytes { input in
            crypto_pwhash_str_alg(&output, input.sodiumChars, UInt64(input.count), limits.ops, limits.mem, crypto_pwhash_alg_argon2id13())
        }
        guard status == 0 else { throw CryptoError.outOfMemory }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `hash` was made from (libsodium compares in constant time).
    public static func verify(_ password: String, hash: String) -> Bool {
        guard (try? Sodium.ensureInitialized()) != nil else { return false }
        var stored = Array(hash.utf8CString)
        let bytes = Array(password.utf8)
        return bytes.withSodiumBytes { input in
            crypto_pwhash_str_verify(&stored, input.sodiumChars, UInt64(input.count))
        } == 0
    }
}
