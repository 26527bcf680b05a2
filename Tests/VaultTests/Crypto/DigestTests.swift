import Testing
@testable import Vault

@Suite struct DigestTests {
    /// FIPS 180-2 examples, plus the empty message.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256MatchesFIPSVectors(message: String, expectedHex: String) {
        #expect(Digest.sha256(Array(message.utf8)) == CryptoFixtures.bytes(hex: expectedHex))
        #expect(Digest.sha256(message.utf8) == CryptoFixtures.bytes(hex: expectedHex))
    }

    @Test func sha256OfAMillionAs() {
        let expected = CryptoFixtures.bytes(hex: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(Digest.sha256([UInt8](repeating: 0x61, count: 1_000_000)) == expected)
    }

    @Test func sha256AcceptsNonContiguousCollections() {
        let lazy = "abc".utf8.lazy.map { $0 }
        #expect(Digest.sha256(lazy) == Digest.sha256(Array("abc".utf8)))
    }

    /// RFC 4231 test cases 1, 2, 3, 4, 6 and 7 (case 5 truncates the output).
    /// Cases 6 and 7 use a 131-byte key, longer than the SHA-256 block.
    @Test(arguments: [
        (String(repeating: "0b", count: 20), "4869205468657265",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        ("4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (String(repeating: "aa", count: 20), String(repeating: "dd", count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        ("0102030405060708090a0b0c0d0e0f10111213141516171819", String(repeating: "cd", count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        (String(repeating: "aa", count: 131),
         "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func hmacMatchesRFC4231(keyHex: String, messageHex: String, expectedHex: String) {
        let mac = Digest.hmacSHA256(CryptoFixtures.bytes(hex: messageHex), key: CryptoFixtures.bytes(hex: keyHex))
        #expect(mac == CryptoFixtures.bytes(hex: expectedHex))
    }

    @Test func hmacMatchesRFC4231CaseSevenWithLongKeyAndData() {
        let message = "This is a test using a larger than block-size key and a larger than block-size data. "
            + "The key needs to be hashed before being used by the HMAC algorithm."
        let mac = Digest.hmacSHA256(message.utf8, key: [UInt8](repeating: 0xaa, count: 131))
        #expect(mac == CryptoFixtures.bytes(hex: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"))
    }

    /// Python: `hmac.new(b"", b"", hashlib.sha256)`.
    @Test func hmacAcceptsEmptyKeyAndMessage() {
        #expect(Digest.hmacSHA256([UInt8](), key: [UInt8]())
            == CryptoFixtures.bytes(hex: "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
    }

    @Test(arguments: [
        ([UInt8](), [UInt8](), true),
        ([1, 2, 3], [1, 2, 3], true),
        ([1, 2, 3], [1, 2, 4], false),
        ([1, 2, 3], [1, 2], false),
        ([], [0], false),
    ] as [([UInt8], [UInt8], Bool)])
    func constantTimeEqualsComparesContentAndLength(a: [UInt8], b: [UInt8], equal: Bool) {
        #expect(constantTimeEquals(a, b) == equal)
        #expect(constantTimeEquals(b, a) == equal)
    }
}
