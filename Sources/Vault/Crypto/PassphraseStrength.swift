import Foundation

/// The floor a master passphrase must clear.
///
/// With a copy of the database and the salt, the key-check value is an offline oracle: every guess
/// costs one Argon2id run (`PassphraseKDF.Cost.moderate`, about a second on one core), and
/// `vault2024` fell in 14 s. So a passphrase must be long and not a word with decorations:
/// - at least ``minimumLength`` characters;
/// - an estimated strength of at least ``minimumBits`` bits: per character, the log2 of the size of
///   the character classes it draws from (lower case, upper case, digits, symbols and spaces,
///   anything else), where a character repeating the one before, or continuing a run such as `abc`
///   or `123`, counts as one bit;
/// - not a common password or word with digits, symbols or case changes around it (`Vault2024!`),
///   letters written as digits or symbols inside it read as letters (`P@ssw0rd`).
///
/// Four or five random words (`correct horse battery staple`) clear it; a word and a year do not.
/// The passphrase is never echoed in the refusal.
public enum PassphraseStrength {
    /// Fewest characters accepted.
    public static let minimumLength = 16
    /// Least estimated strength accepted, in bits.
    public static let minimumBits = 64.0

    /// Why a passphrase is refused, without the passphrase.
    public enum Weakness: Error, Equatable, CustomStringConvertible {
        /// Fewer than ``minimumLength`` characters.
        case tooShort(characters: Int)
        /// Estimated below ``minimumBits``.
        case tooPredictable(bits: Int)
        /// A common password or word, decorated.
        case commonWord

        public var description: String {
            switch self {
            case .tooShort(let count):
                "the master passphrase has \(count) characters; at least \(PassphraseStrength.minimumLength) are required "
                    + "(four or five random words work well)"
            case .tooPredictable(let bits):
                "the master passphrase is too predictable (about \(bits) bits; at least \(Int(PassphraseStrength.minimumBits)) are required): "
                    + "use four or five random words, or more varied characters"
            case .commonWord:
                "the master passphrase is a common password or word with digits or symbols around it; use four or five random words"
            }
        }
    }

    /// The weakness of `passphrase`, or nil when it clears the floor.
    public static func weakness(of passphrase: String) -> Weakness? {
        let characters = Array(passphrase.unicodeScalars)
        guard characters.count >= minimumLength else { return .tooShort(characters: characters.count) }
        if isDecoratedCommonWord(passphrase) { return .commonWord }
        let bits = estimatedBits(characters)
        return bits < minimumBits ? .tooPredictable(bits: Int(bits)) : nil
    }

    /// The estimate described above.
    static func estimatedBits(_ characters: [Unicode.Scalar]) -> Double {
        var lower = false, upper = false, digit = false, symbol = false, other = false
        for character in characters {
            switch character.value {
            case 0x61...0x7A: lower = true
            case 0x41...0x5A: upper = true
            case 0x30...0x39: digit = true
            case 0x20...0x7E: symbol = true
            default: other = true
            }
        }
        let pool = (lower ? 26 : 0) + (upper ? 26 : 0) + (digit ? 10 : 0) + (symbol ? 33 : 0) + (other ? 100 : 0)
        let perCharacter = log2(Double(max(pool, 2)))
        var bits = 0.0
        for (index, character) in characters.enumerated() {
            guard index > 0 else {
                bits += perCharacter
                continue
            }
            let step = Int64(character.value) - Int64(characters[index - 1].value)
            bits += (step == 0 || step == 1 || step == -1) ? 1 : perCharacter
        }
        return bits
    }

    /// Whether the passphrase, lower-cased with digits, symbols and spaces removed, is one of the
    /// common words (or one repeated).
    static func isDecoratedCommonWord(_ passphrase: String) -> Bool {
        var letters = ""
        letters.unicodeScalars.append(contentsOf: unLeet(Array(passphrase.lowercased().unicodeScalars)).filter { CharacterSet.letters.contains($0) })
        guard !letters.isEmpty else { return true }
        for word in commonWords where letters.count % word.count == 0 {
            if String(repeating: word, count: letters.count / word.count) == letters { return true }
        }
        return false
    }

    /// The characters written for letters inside a word (`p@ssw0rd`), and the letters they stand for.
    static let leet: [Unicode.Scalar: Unicode.Scalar] = ["@": "a", "4": "a", "3": "e", "1": "i", "0": "o", "$": "s", "5": "s", "7": "t"]

    /// `characters` with each such stand-in that sits between two letters read as its letter.
    static func unLeet(_ characters: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var read = characters
        for index in read.indices.dropFirst().dropLast() {
            guard let letter = leet[read[index]], CharacterSet.letters.contains(read[index - 1]) else { continue }
            let next = read[index + 1]
            if CharacterSet.letters.contains(next) || leet[next] != nil { read[index] = letter }
        }
        return read
    }

    /// Common passwords and the words a vault's operator reaches for first.
    static let commonWords: [String] = [
        "password", "passphrase", "passwort", "vault", "secret", "admin", "administrator", "root", "master", "masterkey", "letmein",
        "welcome", "qwerty", "qwertz", "azerty", "asdf", "asdfgh", "zxcvbn", "iloveyou", "monkey", "dragon", "sunshine", "princess",
        "football", "baseball", "superman", "batman", "trustno", "shadow", "michael", "charlie", "login", "changeme", "default", "secure",
        "security", "payment", "payments", "billing", "card", "cards", "token", "tokens", "merchant", "company", "production", "prod",
        "test", "testing", "summer", "winter", "spring", "autumn", "january", "december", "hello", "freedom", "whatever", "abc", "abcd",
    ]
}
