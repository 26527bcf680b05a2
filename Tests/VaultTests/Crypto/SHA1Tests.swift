import Testing
@testable import Vault

/// SHA-1 and HMAC-SHA1 against their published vectors (FIPS 180 examples, RFC 2202).
@Suite struct SHA1Tests {
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func theDigestIsTheStandardsOne(message: String, digest: String) {
        #expect(SHA1.hash(Array(message.utf8)) == CryptoFixtures.bytes(hex: digest))
    }

    @Test func aMillionAsHashAsTheStandardSays() {
        #expect(SHA1.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)) == CryptoFixtures.bytes(hex: "34aa973cd4c4daa4f61eeb2bdbad27316534016f"))
    }

    @Test func theHMACIsRFC2202s() {
        #expect(
            SHA1.hmac(Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20))
                == CryptoFixtures.bytes(hex: "b617318655057264e28bc0b6fb378c8ef146be00"))
        #expect(
            SHA1.hmac(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
                == CryptoFixtures.bytes(hex: "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"))
        // A key longer than the block is hashed first.
        #expect(
            SHA1.hmac(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8), key: [UInt8](repeating: 0xaa, count: 80))
                == CryptoFixtures.bytes(hex: "aa4ae5e15272d00e95705637ce8a3b55ed402112"))
    }
}
