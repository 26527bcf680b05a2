import Testing
@testable import Vault

/// The master passphrase floor: the passphrases that fell to an offline guess (`a`, `vault2024`)
/// and their decorated cousins are refused, random words and long varied ones pass.
@Suite struct PassphraseStrengthTests {
    @Test(arguments: [
        ("a", PassphraseStrength.Weakness.tooShort(characters: 1)),
        ("vault2024", .tooShort(characters: 9)),
        ("Vault2024!Vault2024!", .commonWord),
        ("password1234567890", .commonWord),
        ("P@ssw0rd-2024-2025", .commonWord),
        ("Secur1ty!Secur1ty!", .commonWord),
        ("aaaaaaaaaaaaaaaaaaaaaaaa", .tooPredictable(bits: 28)),
        ("abcdefghijklmnopqrstuvwx", .tooPredictable(bits: 28)),
        ("1234567890123456789", .commonWord),
    ])
    func weakPassphrasesAreRefused(passphrase: String, weakness: PassphraseStrength.Weakness) {
        let found = PassphraseStrength.weakness(of: passphrase)
        #expect(found != nil)
        if case .tooPredictable = weakness, case .tooPredictable = found {} else { #expect(found == weakness) }
        // The refusal never repeats the passphrase.
        #expect(passphrase.count < 4 || !(found?.description.contains(passphrase) ?? false))
    }

    @Test(arguments: ["correct horse battery staple", "ocean-lantern-ribbon-gravel-7", "Tq8#vL2!mZ9@wR4$", "zürich kaffee wolke tisch"])
    func randomWordsAndVariedPassphrasesPass(passphrase: String) {
        #expect(PassphraseStrength.weakness(of: passphrase) == nil)
    }

    @Test func repeatsAndRunsCountOneBitEach() {
        #expect(PassphraseStrength.estimatedBits(Array("aaaa".unicodeScalars)) < 4.8 + 3.1)
        #expect(PassphraseStrength.estimatedBits(Array("azby".unicodeScalars)) > 4.7 * 4 - 0.01)
    }
}
