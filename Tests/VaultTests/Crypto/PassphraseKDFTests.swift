import Testing
@testable import Vault

@Suite struct PassphraseKDFTests {
    let salt = Array(0..<16) as [UInt8]
    let passphrase = Array("correct horse battery staple".utf8)

    @Test func sameSaltAndPassphraseGiveTheSameKey() throws {
        let first = try PassphraseKDF.deriveKey(passphrase: passphrase, salt: salt, cost: .testing)
        let second = try PassphraseKDF.deriveKey(passphrase: passphrase, salt: salt, cost: .testing)
        #expect(first.count == 32)
        #expect(first.constantTimeEquals(second))
    }

    @Test func differentSaltOrPassphraseGiveDifferentKeys() throws {
        let base = try PassphraseKDF.deriveKey(passphrase: passphrase, salt: salt, cost: .testing)
        let otherSalt = try PassphraseKDF.deriveKey(passphrase: passphrase, salt: salt.reversed(), cost: .testing)
        let otherPassphrase = try PassphraseKDF.deriveKey(passphrase: Array("correct horse battery stapler".utf8), salt: salt, cost: .testing)
        #expect(!base.constantTimeEquals(otherSalt))
        #expect(!base.constantTimeEquals(otherPassphrase))
    }

    /// Expected values from the Argon2 reference implementation (Python
    /// argon2-cffi `hash_secret_raw`, type ID, parallelism 1, memory in KiB =
    /// memLimit / 1024), independent of libsodium.
    @Test(arguments: [
        (UInt64(1), 8192, "d17ea6341ca93da6079ea2f64dc4aa31dd1aaf9caa67fb42ac4afd0714706f26"),
        (UInt64(2), 65536, "2df47ede6358ed17a9976d4fcedb897a10036d432a4acef17d263bfc98bd20ac"),
    ])
    func matchesTheArgon2idReferenceImplementation(opsLimit: UInt64, memLimit: Int, expectedHex: String) throws {
        let cost = PassphraseKDF.Cost(opsLimit: opsLimit, memLimit: memLimit)
        let key = try PassphraseKDF.deriveKey(passphrase: passphrase, salt: salt, cost: cost)
        #expect(key.copyToArray() == CryptoFixtures.bytes(hex: expectedHex))
    }

    @Test func costPresetsAreLibsodiumsLimits() {
        #expect(PassphraseKDF.saltLength == 16)
        #expect(PassphraseKDF.Cost.testing == PassphraseKDF.Cost(opsLimit: 1, memLimit: 8192))
        #expect(PassphraseKDF.Cost.interactive == PassphraseKDF.Cost(opsLimit: 2, memLimit: 64 << 20))
        #expect(PassphraseKDF.Cost.moderate == PassphraseKDF.Cost(opsLimit: 3, memLimit: 256 << 20))
    }

    @Test(arguments: [0, 8, 15, 17, 32])
    func saltsOfTheWrongLengthAreRefused(length: Int) {
        #expect(throws: CryptoError.keyDerivationFailed) {
            try PassphraseKDF.deriveKey(passphrase: passphrase, salt: [UInt8](repeating: 1, count: length), cost: .testing)
        }
    }

    @Test(arguments: [PassphraseKDF.Cost(opsLimit: 0, memLimit: 8192), PassphraseKDF.Cost(opsLimit: 1, memLimit: 1024)])
    func costsBelowTheMinimumAreRefused(cost: PassphraseKDF.Cost) {
        #expect(throws: CryptoError.keyDerivationFailed) {
            try PassphraseKDF.deriveKey(passphrase: passphrase, salt: salt, cost: cost)
        }
    }
}
