import Testing
@testable import Vault

@Suite struct RecordCipherTests {
    let key: SecureBytes
    let associatedData = Array("merchant=7|card=42|kv=1".utf8)

    init() throws {
        key = try CryptoFixtures.key()
    }

    @Test(arguments: [0, 1, 16, 100, 4096])
    func sealThenOpenReturnsThePlaintext(length: Int) throws {
        let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let sealed = try RecordCipher.seal(plaintext, key: key, associatedData: associatedData)
        #expect(sealed.count == length + RecordCipher.overhead)
        let opened = try RecordCipher.open(sealed, key: key, associatedData: associatedData)
        #expect(opened.copyToArray() == plaintext)
    }

    @Test func sealedLayoutIsNonceThenCiphertextThenTag() {
        #expect(RecordCipher.keyLength == 32)
        #expect(RecordCipher.nonceLength == 24)
        #expect(RecordCipher.tagLength == 16)
        #expect(RecordCipher.overhead == 40)
    }

    @Test func twoSealsOfTheSamePlaintextDiffer() throws {
        let first = try RecordCipher.seal(CryptoFixtures.testPAN, key: key, associatedData: associatedData)
        let second = try RecordCipher.seal(CryptoFixtures.testPAN, key: key, associatedData: associatedData)
        #expect(first != second)
        #expect(first.prefix(RecordCipher.nonceLength) != second.prefix(RecordCipher.nonceLength))
    }

    @Test func sealingSecureBytesMatchesSealingTheirCopy() throws {
        let dataKey = try SecureBytes.random(count: 32)
        let wrapped = try RecordCipher.seal(dataKey, key: key, associatedData: associatedData)
        let unwrapped = try RecordCipher.open(wrapped, key: key, associatedData: associatedData)
        #expect(unwrapped.constantTimeEquals(dataKey))
    }

    /// draft-irtf-cfrg-xchacha-03, appendix A.3.1 (AEAD_XChaCha20_Poly1305).
    @Test func opensTheDraftXChaChaTestVector() throws {
        let key = try SecureBytes(copying: CryptoFixtures.bytes(hex: "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"))
        let nonce = CryptoFixtures.bytes(hex: "404142434445464748494a4b4c4d4e4f5051525354555657")
        let ciphertext = CryptoFixtures.bytes(hex: """
            bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39\
            ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9\
            21f9664c97637da9768812f615c68b13b52e
            """)
        let tag = CryptoFixtures.bytes(hex: "c0875924c1c7987947deafd8780acf49")
        let associatedData = CryptoFixtures.bytes(hex: "50515253c0c1c2c3c4c5c6c7")
        let opened = try RecordCipher.open(nonce + ciphertext + tag, key: key, associatedData: associatedData)
        let expected = "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
        #expect(String(decoding: opened.copyToArray(), as: UTF8.self) == expected)
    }

    enum Region: String, CaseIterable { case nonce, body, tag }

    @Test(arguments: Region.allCases)
    func flippingABitInAnyRegionFailsAuthentication(region: Region) throws {
        var sealed = try RecordCipher.seal(CryptoFixtures.testPAN, key: key, associatedData: associatedData)
        let index = switch region {
        case .nonce: 3
        case .body: RecordCipher.nonceLength + 5
        case .tag: sealed.count - 1
        }
        sealed[index] ^= 0x01
        #expect(throws: CryptoError.authenticationFailed) {
            try RecordCipher.open(sealed, key: key, associatedData: associatedData)
        }
    }

    @Test func wrongAssociatedDataFailsAuthentication() throws {
        let sealed = try RecordCipher.seal(CryptoFixtures.testPAN, key: key, associatedData: associatedData)
        #expect(throws: CryptoError.authenticationFailed) {
            try RecordCipher.open(sealed, key: key, associatedData: Array("merchant=8|card=42|kv=1".utf8))
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try RecordCipher.open(sealed, key: key, associatedData: [])
        }
    }

    @Test func wrongKeyFailsAuthentication() throws {
        let sealed = try RecordCipher.seal(CryptoFixtures.testPAN, key: key, associatedData: associatedData)
        let otherKey = try CryptoFixtures.key(startingAt: 1)
        #expect(throws: CryptoError.authenticationFailed) {
            try RecordCipher.open(sealed, key: otherKey, associatedData: associatedData)
        }
    }

    @Test(arguments: [0, 1, 24, 39])
    func inputShorterThanNonceAndTagIsMalformed(length: Int) {
        #expect(throws: CryptoError.malformedCiphertext) {
            try RecordCipher.open([UInt8](repeating: 0, count: length), key: key, associatedData: associatedData)
        }
    }

    @Test func truncatedCiphertextFailsAuthentication() throws {
        let sealed = try RecordCipher.seal(CryptoFixtures.testPAN, key: key, associatedData: associatedData)
        #expect(throws: CryptoError.authenticationFailed) {
            try RecordCipher.open(Array(sealed.dropLast()), key: key, associatedData: associatedData)
        }
    }

    @Test(arguments: [0, 16, 31, 33, 64])
    func keysOfTheWrongLengthAreRefused(length: Int) throws {
        let badKey = try CryptoFixtures.key(length)
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: length)) {
            try RecordCipher.seal([1, 2, 3], key: badKey, associatedData: [])
        }
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: length)) {
            try RecordCipher.open([UInt8](repeating: 0, count: 64), key: badKey, associatedData: [])
        }
    }

    @Test func errorDescriptionsNameTheProblemOnly() {
        #expect(CryptoError.authenticationFailed.description.contains("decryption failed"))
        #expect(CryptoError.invalidKeyLength(expected: 32, actual: 16).description == "invalid key length: expected 32 bytes, got 16")
    }
}
