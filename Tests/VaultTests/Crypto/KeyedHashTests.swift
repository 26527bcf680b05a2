import Testing
@testable import Vault

@Suite struct KeyedHashTests {
    /// Expected values computed independently with Python's
    /// `hashlib.blake2b(message, key=key, digest_size=n)`.
    @Test func matchesIndependentlyComputedBLAKE2b() throws {
        let merchantA = try CryptoFixtures.key(startingAt: 0)
        #expect(try KeyedHash.blake2b(CryptoFixtures.testPAN, key: merchantA)
            == CryptoFixtures.bytes(hex: "f1d72ecd7c22cae3446fb8a22290af1ee19486491641f20c2594c0dd308d9afb"))
        let merchantB = try CryptoFixtures.key(startingAt: 32)
        #expect(try KeyedHash.blake2b(CryptoFixtures.testPAN, key: merchantB)
            == CryptoFixtures.bytes(hex: "9c42c0d1efec68d56639034dfe3d62feca7af63ab2711a1622a11b33525423ed"))
    }

    /// First keyed entry of the BLAKE2 reference known-answer file (blake2b-kat.txt:
    /// 64-byte key 00..3f, empty message, 64-byte output); Python agrees.
    @Test func matchesTheBLAKE2bKeyedVectorForAnEmptyMessage() throws {
        let key = try CryptoFixtures.key(64)
        let expected = "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786"
            + "b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568"
        #expect(try KeyedHash.blake2b([], key: key, length: 64) == CryptoFixtures.bytes(hex: expected))
    }

    @Test func samePANUnderTwoMerchantKeysGivesDifferentFingerprints() throws {
        let first = try KeyedHash.blake2b(CryptoFixtures.testPAN, key: try SecureBytes.random(count: 32))
        let second = try KeyedHash.blake2b(CryptoFixtures.testPAN, key: try SecureBytes.random(count: 32))
        #expect(first != second)
    }

    @Test func samePANUnderOneKeyGivesTheSameFingerprint() throws {
        let key = try SecureBytes.random(count: 32)
        #expect(try KeyedHash.blake2b(CryptoFixtures.testPAN, key: key)
            == KeyedHash.blake2b(CryptoFixtures.testPAN[...], key: key))
    }

    @Test(arguments: [16, 32, 64])
    func outputHasTheRequestedLength(length: Int) throws {
        #expect(try KeyedHash.blake2b([1, 2, 3], key: CryptoFixtures.key(), length: length).count == length)
    }

    @Test(arguments: [0, 15, 65])
    func keysOutsideSixteenToSixtyFourBytesAreRefused(length: Int) throws {
        let key = try CryptoFixtures.key(length)
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: length)) {
            try KeyedHash.blake2b([1], key: key)
        }
    }
}
