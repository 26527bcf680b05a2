import Testing
@testable import Vault

@Suite struct SubkeyDerivationTests {
    let master: SecureBytes

    init() throws {
        master = try CryptoFixtures.key()
    }

    @Test func sameInputsGiveTheSameSubkey() throws {
        let first = try SubkeyDerivation.derive(from: master, id: 7, context: "cardfpv1")
        let second = try SubkeyDerivation.derive(from: master, id: 7, context: "cardfpv1")
        #expect(first.constantTimeEquals(second))
    }

    @Test func subkeysDifferByIdAndByContext() throws {
        let base = try SubkeyDerivation.derive(from: master, id: 1, context: "cardfpv1")
        let otherID = try SubkeyDerivation.derive(from: master, id: 2, context: "cardfpv1")
        let otherContext = try SubkeyDerivation.derive(from: master, id: 1, context: "datakey1")
        let otherMaster = try SubkeyDerivation.derive(from: try CryptoFixtures.key(startingAt: 1), id: 1, context: "cardfpv1")
        #expect(!base.constantTimeEquals(otherID))
        #expect(!base.constantTimeEquals(otherContext))
        #expect(!base.constantTimeEquals(otherMaster))
    }

    /// Expected values computed independently with Python's
    /// `hashlib.blake2b(b"", key=master, salt=id_le64 + 8 zero bytes,
    /// person=context + 8 zero bytes, digest_size=length)`, which is what
    /// `crypto_kdf_derive_from_key` is defined as.
    @Test(arguments: [
        (UInt64(1), "cardfpv1", 32, "622a943ec02e16039c35a3e048800b3e9ba66a0610509e457fc6c01994e2be27"),
        (UInt64(2), "cardfpv1", 32, "4173d9404f99c4319efd2bd45bd80510674dbed089170e40384f1b7cf5c04a6b"),
        (UInt64(1), "datakey1", 32, "000724a15d680d2f0b90b1ee518b59f0a945c3078b8213ccb1774fec5db4b420"),
        (UInt64(0x0123_4567_89ab_cdef), "KDF test", 64,
         "9b6148d2a1e398c24f461268f49e9b32c5ae9f661d28c0286af49958ba493f3940ecdac3d4a4c7d7877ea11351936192c2cf884a10cfe28f55aa2265f0bf8de6"),
    ])
    func matchesIndependentlyComputedSubkeys(id: UInt64, context: String, length: Int, expectedHex: String) throws {
        let subkey = try SubkeyDerivation.derive(from: master, id: id, context: context, length: length)
        #expect(subkey.copyToArray() == CryptoFixtures.bytes(hex: expectedHex))
    }

    @Test(arguments: ["", "short", "nine char", "sévèrel"])
    func contextsThatAreNotEightBytesAreRefused(context: String) {
        #expect(throws: CryptoError.keyDerivationFailed) {
            try SubkeyDerivation.derive(from: master, id: 1, context: context)
        }
    }

    @Test(arguments: [0, 15, 65])
    func lengthsOutsideSixteenToSixtyFourAreRefused(length: Int) {
        #expect(throws: CryptoError.keyDerivationFailed) {
            try SubkeyDerivation.derive(from: master, id: 1, context: "cardfpv1", length: length)
        }
    }

    @Test func masterOfTheWrongLengthIsRefused() throws {
        let short = try CryptoFixtures.key(16)
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: 16)) {
            try SubkeyDerivation.derive(from: short, id: 1, context: "cardfpv1")
        }
    }
}
